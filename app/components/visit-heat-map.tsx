import { type VisitHour } from '#app/types/insights.ts'

const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']
const HOURS = Array.from({ length: 24 }, (_, hour) => hour)
/** Hours whose heading is shown; the others are named for screen readers only, so 24 columns fit 360 px. */
const SHOWN_HOURS = new Set([0, 6, 12, 18])
const LEVELS = 5

const hourName = (hour: number) => `${String(hour).padStart(2, '0')}:00`

/**
 * Visits by weekday and hour of the business's clock as a table whose cells are shaded by how busy the hour was
 * (five levels of the brand colour), drawn on the server: it needs no script. The counts are in each cell for
 * screen readers and in its title for a pointer.
 */
export function VisitHeatMap({ hours, label }: { hours: VisitHour[]; label: string }) {
  const counts = new Map(hours.map((cell) => [`${cell.weekday}:${cell.hour}`, cell.visits]))
  const max = Math.max(0, ...hours.map((cell) => cell.visits))
  const level = (visits: number) => (visits === 0 ? 0 : Math.max(1, Math.ceil((visits / max) * LEVELS)))
  return (
    <figure className="heat-map">
      <table>
        <caption>{label}</caption>
        <thead>
          <tr>
            <td />
            {HOURS.map((hour) => (
              <th key={hour} scope="col" className="heat-map__hour">
                {SHOWN_HOURS.has(hour) ? <span aria-hidden="true">{hour}</span> : null}
                <span className="visually-hidden">{hourName(hour)}</span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {WEEKDAYS.map((weekday, day) => (
            <tr key={weekday}>
              <th scope="row" className="heat-map__day">
                <abbr title={weekday}>{weekday.slice(0, 3)}</abbr>
              </th>
              {HOURS.map((hour) => {
                const visits = counts.get(`${day}:${hour}`) ?? 0
                return (
                  <td
                    key={hour}
                    className={`heat-map__cell heat-map__cell--${level(visits)}`}
                    title={`${weekday} ${hourName(hour)}: ${visits} ${visits === 1 ? 'visit' : 'visits'}`}
                  >
                    <span className="visually-hidden">{visits}</span>
                  </td>
                )
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <figcaption className="heat-map__legend">
        {max ? `Darker is busier: the busiest hour had ${max} ${max === 1 ? 'visit' : 'visits'}.` : 'No visits yet.'}
      </figcaption>
    </figure>
  )
}
