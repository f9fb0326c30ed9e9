import { type TrialTerms } from '#app/components/pricing-section.tsx'
import { getFaq } from '#app/services/content/pages.server.ts'
import { pushesText } from '#app/utils/plan-format.ts'
import type { PublicTariff } from '#models/tariff.server.ts'

/** The landing page's questions: content/pages/help-center.md, with the plans' numbers from the tariffs table. */
export function helpCenterTopics({
  tariffs,
  trial,
  supportEmail,
}: {
  tariffs: PublicTariff[]
  trial: TrialTerms
  supportEmail: string
}) {
  const planPushes = tariffs.map((tariff) => `${tariff.name} ${pushesText(tariff.monthlyPushLimit)}`).join(', ')
  const values = { planPushes, trialPushLimit: trial.monthlyPushLimit, trialDays: trial.days, supportEmail }
  return getFaq('help-center', values)
}
