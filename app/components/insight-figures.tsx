import { type InsightItem } from '#app/types/insights.ts'

/**
 * The figures of a range, each with its change against the range before ('+12% vs previous 30 days'). The change's
 * direction is in its sign and an arrow, never in colour alone.
 */
export function InsightFigures({ items, previousLabel }: { items: InsightItem[]; previousLabel: string }) {
  return (
    <dl className="insight-figures">
      {items.map((item) => (
        <div key={item.key} className="insight-figure">
          <dt title={item.hint}>{item.label}</dt>
          <dd className="insight-figure__value">{item.value}</dd>
          <dd className={`insight-figure__change insight-figure__change--${item.trend}`}>
            {item.trend === 'up' || item.trend === 'down' ? (
              <span aria-hidden="true">{item.trend === 'up' ? '▲ ' : '▼ '}</span>
            ) : null}
            {item.change === '—' ? 'no earlier figure' : item.change} <span>vs previous {previousLabel}</span>
          </dd>
        </div>
      ))}
    </dl>
  )
}
