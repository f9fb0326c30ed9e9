import { renderToStaticMarkup } from 'react-dom/server'
import { type TrialTerms } from '#app/components/pricing-section.tsx'
import { TableScroll } from '#app/components/table-scroll.tsx'
import { getFaq } from '#app/services/content/pages.server.ts'
import { cardsText, formatDollars, pushesText } from '#app/utils/plan-format.ts'
import { type PublicTariff } from '#models/tariff.server.ts'

/**
 * The owners' FAQ: content/pages/account-faq.md. Plan numbers come from the tariffs table and the trial terms,
 * never typed twice; the plans table is rendered here and takes the file's `<!-- block:plansTable -->` line.
 */
export function helpTopics({ tariffs, trial }: { tariffs: PublicTariff[]; trial: TrialTerms }) {
  const values = {
    trialDays: trial.days,
    trialCards: cardsText(trial.cardLimit),
    trialPushes: pushesText(trial.monthlyPushLimit),
  }
  return getFaq('account-faq', values, { plansTable: renderToStaticMarkup(<PlansTable tariffs={tariffs} />) })
}

function PlansTable({ tariffs }: { tariffs: PublicTariff[] }) {
  return (
    <TableScroll label="Plans and prices">
      <table className="help-plans">
        <thead>
          <tr>
            <th scope="col">Plan</th>
            <th scope="col">Monthly</th>
            <th scope="col">Yearly</th>
            <th scope="col">Active cards</th>
            <th scope="col">Push messages a month</th>
            <th scope="col">Staff logins</th>
          </tr>
        </thead>
        <tbody>
          {tariffs.map((tariff) => (
            <tr key={tariff.tier}>
              <th scope="row">{tariff.name}</th>
              <td>{formatDollars(tariff.monthlyPriceCents)}</td>
              <td>{formatDollars(tariff.yearlyPriceCents)}</td>
              <td>{tariff.cardLimit}</td>
              <td>{tariff.monthlyPushLimit}</td>
              <td>{tariff.staffSeats}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  )
}
