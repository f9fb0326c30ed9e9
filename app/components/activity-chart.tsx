import type { DailyActivity } from '#models/card-stats.server.ts'

const WIDTH = 600
const HEIGHT = 160
const PAD = { top: 12, right: 8, bottom: 24, left: 32 }

/**
 * Stamps and rewards per day as a small bar chart, drawn on the server as SVG (no script, prints, scales).
 * The numbers are also in a table for screen readers.
 */
export function ActivityChart({ days, label }: { days: DailyActivity[]; label: string }) {
  const max = Math.max(1, ...days.map((day) => Math.max(day.stamps, day.rewards)))
  const plotWidth = WIDTH - PAD.left - PAD.right
  const plotHeight = HEIGHT - PAD.top - PAD.bottom
  const slot = plotWidth / Math.max(1, days.length)
  const bar = Math.max(2, slot * 0.38)
  const y = (value: number) => PAD.top + plotHeight - (Math.max(0, value) / max) * plotHeight
  const totalStamps = days.reduce((sum, day) => sum + day.stamps, 0)
  const totalRewards = days.reduce((sum, day) => sum + day.rewards, 0)
  return (
    <figure className="activity-chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby="activity-chart-title" preserveAspectRatio="none">
        <title id="activity-chart-title">{`${label}: ${totalStamps} stamps and ${totalRewards} rewards in the last ${days.length} days`}</title>
        <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(0)} y2={y(0)} className="activity-chart__axis" />
        <text x={PAD.left - 6} y={y(max) + 4} textAnchor="end" className="activity-chart__tick">
          {max}
        </text>
        <text x={PAD.left - 6} y={y(0) + 4} textAnchor="end" className="activity-chart__tick">
          0
        </text>
        {days.map((day, index) => {
          const x = PAD.left + index * slot + slot / 2
          return (
            <g key={day.day}>
              <rect x={x - bar} y={y(day.stamps)} width={bar} height={y(0) - y(day.stamps)} className="activity-chart__stamps" />
              <rect x={x} y={y(day.rewards)} width={bar} height={y(0) - y(day.rewards)} className="activity-chart__rewards" />
              {index % 7 === 0 || index === days.length - 1 ? (
                <text x={x} y={HEIGHT - 6} textAnchor="middle" className="activity-chart__tick">
                  {day.day.slice(5)}
                </text>
              ) : null}
            </g>
          )
        })}
      </svg>
      <figcaption className="activity-chart__legend">
        <span className="activity-chart__key activity-chart__key--stamps">Stamps ({totalStamps})</span>
        <span className="activity-chart__key activity-chart__key--rewards">Rewards ({totalRewards})</span>
      </figcaption>
      <table className="visually-hidden">
        <caption>{label}, per day</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col">Stamps</th>
            <th scope="col">Rewards</th>
          </tr>
        </thead>
        <tbody>
          {days.map((day) => (
            <tr key={day.day}>
              <td>{day.day}</td>
              <td>{day.stamps}</td>
              <td>{day.rewards}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  )
}
