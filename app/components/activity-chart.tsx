import { type InsightDay } from '#app/types/insights.ts'
import { chartBuckets, chartUnit, type ChartBucket } from '#app/utils/chart-buckets.ts'

/** Each bar's slot in the SVG's own units; the SVG stretches to the figure's width. */
const SLOT = 10
const HEIGHT = 100
/**
 * A date label every few bars, counted back from the last, so that three or four labels share the width and never
 * crowd however narrow the screen (the last one ends at the right edge, half a label left of its bar): every 3 days
 * of 7, every 10 of 30, every 30 of 90, every 17 weeks of a year's 53.
 */
const labelEvery = (bars: number) => (bars <= 7 ? 3 : bars <= 31 ? 10 : bars <= 53 ? 17 : 30)
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/** 'Nov 26' from '2026-11-26' (a calendar day of the business already: no time zone may move it). */
const shortDate = (day: string) => `${MONTHS[Number(day.slice(5, 7)) - 1]} ${Number(day.slice(8, 10))}`
/** 'Nov 26, 2026' for the screen readers' table. */
const fullDate = (day: string) => `${shortDate(day)}, ${day.slice(0, 4)}`
/** A bar's row in that table: its day, or its week's first and last day. */
const bucketDates = (bucket: ChartBucket) =>
  bucket.first === bucket.last ? fullDate(bucket.first) : `${fullDate(bucket.first)} to ${fullDate(bucket.last)}`

/**
 * Stamps and new holders per day (per week over a year: chart-buckets.ts) as a small bar chart, drawn on the server
 * as SVG (no script, prints, scales). The numbers are also in a table for screen readers.
 *
 * Only the bars are SVG, stretched to the width (`preserveAspectRatio="none"`); the words around them (the scale,
 * the dates) are HTML placed by percentage, so they keep their shape at 360 px and at 1280 px instead of being
 * squeezed or stretched with the bars, and one week apart they cannot overlap.
 */
export function ActivityChart({
  days,
  label,
  newHolders = true,
}: {
  days: InsightDay[]
  label: string
  /** False: stamps only (the card page filtered by who and where: joining is nobody's and nowhere's). */
  newHolders?: boolean
}) {
  const buckets = chartBuckets(days)
  const unit = chartUnit(days.length)
  const max = Math.max(1, ...buckets.map((bucket) => Math.max(bucket.stamps, newHolders ? bucket.newHolders : 0)))
  const width = SLOT * Math.max(1, buckets.length)
  const bar = SLOT * 0.38
  const y = (value: number) => HEIGHT - (Math.max(0, value) / max) * HEIGHT
  const totalStamps = days.reduce((sum, day) => sum + day.stamps, 0)
  const totalHolders = days.reduce((sum, day) => sum + day.newHolders, 0)
  const every = labelEvery(buckets.length)
  const last = buckets.length - 1
  return (
    <figure className="activity-chart">
      <div className="activity-chart__plot">
        <span className="activity-chart__tick activity-chart__tick--max" aria-hidden="true">
          {max}
        </span>
        <span className="activity-chart__tick activity-chart__tick--zero" aria-hidden="true">
          0
        </span>
        <svg
          viewBox={`0 0 ${width} ${HEIGHT}`}
          role="img"
          aria-labelledby="activity-chart-title"
          preserveAspectRatio="none"
        >
          <title id="activity-chart-title">
            {newHolders
              ? `${label}: ${totalStamps} stamps and ${totalHolders} new holders`
              : `${label}: ${totalStamps} stamps`}
          </title>
          {buckets.map((bucket, index) => {
            const x = index * SLOT + SLOT / 2
            return (
              <g key={bucket.first}>
                <rect
                  x={x - bar}
                  y={y(bucket.stamps)}
                  width={bar}
                  height={HEIGHT - y(bucket.stamps)}
                  className="activity-chart__stamps"
                />
                {newHolders ? (
                  <rect
                    x={x}
                    y={y(bucket.newHolders)}
                    width={bar}
                    height={HEIGHT - y(bucket.newHolders)}
                    className="activity-chart__holders"
                  />
                ) : null}
              </g>
            )
          })}
          <line
            x1={0}
            x2={width}
            y1={HEIGHT}
            y2={HEIGHT}
            className="activity-chart__axis"
            vectorEffect="non-scaling-stroke"
          />
        </svg>
      </div>
      <div className="activity-chart__dates" aria-hidden="true">
        {buckets.map((bucket, index) =>
          (last - index) % every === 0 ? (
            // Today's label ends at the right edge rather than centring under its bar (it would stick out).
            <span
              key={bucket.first}
              className={index === last ? 'activity-chart__date activity-chart__date--last' : 'activity-chart__date'}
              style={index === last ? undefined : { left: `${((index + 0.5) / buckets.length) * 100}%` }}
            >
              {shortDate(bucket.first)}
            </span>
          ) : null,
        )}
      </div>
      <figcaption className="activity-chart__legend">
        <span className="activity-chart__key activity-chart__key--stamps">Stamps ({totalStamps})</span>
        {newHolders ? (
          <span className="activity-chart__key activity-chart__key--holders">New holders ({totalHolders})</span>
        ) : null}
      </figcaption>
      {/* The wrapper is what is hidden: a table is never narrower than its rows, and a year's rows ("Dec 7, 2025 to
          Dec 13, 2025") would make the page scroll sideways on a phone. */}
      <div className="visually-hidden">
        <table>
          <caption>
            {label}, per {unit}
          </caption>
          <thead>
            <tr>
              <th scope="col">{unit === 'day' ? 'Day' : 'Week'}</th>
              <th scope="col">Stamps</th>
              {newHolders ? <th scope="col">New holders</th> : null}
            </tr>
          </thead>
          <tbody>
            {buckets.map((bucket) => (
              <tr key={bucket.first}>
                <th scope="row">{bucketDates(bucket)}</th>
                <td>{bucket.stamps}</td>
                {newHolders ? <td>{bucket.newHolders}</td> : null}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  )
}
