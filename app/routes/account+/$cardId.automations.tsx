import { type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { FormErrors, UNREADABLE_SUBMISSION } from '#app/components/forms.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { notFound } from '#app/server/http-errors.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { requireOwnerPlanState } from '#app/services/billing/plan.server.ts'
import { CARD_NOT_FOUND, requireOwnedCard } from '#app/services/cards/owned-card.server.ts'
import pushStylesHref from '#app/styles/push.css?url'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import {
  automationSchema,
  DELIVERY_RULES_INTENT,
  DeliveryRulesSchema,
  isAutomationIntent,
  STAMP_PUSH_INTENT,
  StampPushSchema,
  type AutomationIntent,
} from '#app/utils/automation-schemas.ts'
import { AUTOMATION_KINDS, AUTOMATION_WORDS } from '#app/utils/automations.ts'
import { saveCardAutomation, getCardAutomations, saveCardDeliveryRules } from '#models/card-automations.server.ts'
import { setOwnedCardAutoPush } from '#models/card.server.ts'
import { getOwnerTimeZone } from '#models/user.server.ts'
import { AutomationForm, DeliveryRulesForm, StampPushForm } from './__automations-forms.tsx'

export const handle: AccountHandle = { title: 'Automatic messages', back: 'previous' }

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: pushStylesHref }]

type ActionData = { intent: AutomationIntent | null; result: SubmissionResult<string[]> | null }

/**
 * The card's automatic messages (docs/product/automations.md): each on or off with its words,
 * the stamp push, quiet hours and caps in the business's time zone. Not gated: after a plan ends the page stays, and
 * says the automations are paused.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId)
  const [settings, timeZone, plan] = await Promise.all([
    getCardAutomations({ userId, cardId: card.id }),
    getOwnerTimeZone(userId),
    requireOwnerPlanState(userId),
  ])
  // Deleted between the two reads: the same answer as a card that is not there.
  if (!settings) throw notFound(CARD_NOT_FOUND)
  return {
    card: {
      id: card.id,
      title: card.title,
      businessName: card.businessName,
      backgroundColor: card.backgroundColor,
      textColor: card.textColor,
    },
    automations: AUTOMATION_KINDS.map((kind) => {
      const { enabled, title, body, days } = settings.automations[kind]
      return { kind, enabled, title, body, days }
    }),
    stampPush: settings.stampPush,
    rules: {
      quietStart: settings.quietStart,
      quietEnd: settings.quietEnd,
      dailyCap: settings.dailyCap,
      weeklyCap: settings.weeklyCap,
    },
    timeZone,
    paused: plan.subActiveFlag === 0,
  }
}

export async function action({ request, params }: ActionFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId)
  const formData = await readFormData(request)
  const intent = formData.get('intent')
  if (!isAutomationIntent(intent)) return formReply<ActionData>({ intent: null, result: null })
  const refuse = (result: SubmissionResult<string[]>) => formReply<ActionData>({ intent, result })
  const owned = { userId, cardId: card.id }
  const back = (message: string) => redirectWithToast(`/account/${card.id}/automations`, { message })
  // The card went between the check and the write: the same answer as a card that is not there.
  const saved = (done: boolean) => {
    if (!done) throw notFound(CARD_NOT_FOUND)
  }

  if (intent === STAMP_PUSH_INTENT) {
    const submission = parseWithZod(formData, { schema: StampPushSchema })
    if (submission.status !== 'success') return refuse(submission.reply())
    const stampPush = submission.value.stampPush === true
    saved(await setOwnedCardAutoPush({ ...owned, autoPush: stampPush }))
    return back(stampPush ? 'Holders will get a push when stamped.' : 'Holders will no longer get a push when stamped.')
  }
  if (intent === DELIVERY_RULES_INTENT) {
    const submission = parseWithZod(formData, { schema: DeliveryRulesSchema })
    if (submission.status !== 'success') return refuse(submission.reply())
    const { quietHours, quietStart, quietEnd, dailyCap, weeklyCap } = submission.value
    // No quiet hours: start = end.
    const [start, end] = quietHours ? [quietStart!, quietEnd!] : [0, 0]
    saved(await saveCardDeliveryRules({ ...owned, quietStart: start, quietEnd: end, dailyCap, weeklyCap }))
    return back('Quiet hours and limits saved.')
  }
  const submission = parseWithZod(formData, { schema: automationSchema(intent) })
  if (submission.status !== 'success') return refuse(submission.reply())
  const { enabled = false, title, body, days = null } = submission.value
  saved(await saveCardAutomation({ ...owned, kind: intent, enabled, title, body, days }))
  const name = AUTOMATION_WORDS[intent].name
  return back(enabled ? `“${name}” saved: it is on.` : `“${name}” saved: it is off.`)
}

export default function Automations() {
  const { card, automations, stampPush, rules, timeZone, paused } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>() as ActionData | undefined
  // Each form shows only the answer to its own submission.
  const resultFor = (intent: AutomationIntent) => (actionData?.intent === intent ? actionData.result : undefined)
  return (
    <>
      <h1>Automatic messages</h1>
      <p className="lead">
        Messages that go by themselves to the holders of <strong>{card.title || 'your card'}</strong>, each to one
        holder on every channel they have. They do not count toward your monthly messages.
      </p>
      {paused ? (
        <p className="notice-panel" role="status">
          Your plan has ended, so automatic messages are paused until you{' '}
          <Link to="/account/tariffs">choose a plan</Link>. Stamp pushes and “reward earned” still go.
        </p>
      ) : null}
      {actionData && actionData.intent === null ? (
        <FormErrors id="automation-errors" errors={[UNREADABLE_SUBMISSION]} />
      ) : null}
      <p>
        <Link to={`/account/${card.id}/push_notification/history`}>See what was sent</Link>
      </p>
      {automations.map((setting) => (
        <section key={setting.kind} className="panel" aria-labelledby={`heading-${setting.kind}`}>
          <h2 id={`heading-${setting.kind}`}>{AUTOMATION_WORDS[setting.kind].name}</h2>
          <AutomationForm
            key={JSON.stringify(setting)}
            card={card}
            setting={setting}
            lastResult={resultFor(setting.kind)}
          />
        </section>
      ))}
      <section className="panel" aria-labelledby="stamp-push-title">
        <h2 id="stamp-push-title">Stamp push</h2>
        <StampPushForm key={String(stampPush)} stampPush={stampPush} lastResult={resultFor(STAMP_PUSH_INTENT)} />
      </section>
      <section className="panel" aria-labelledby="delivery-rules-title">
        <h2 id="delivery-rules-title">Quiet hours and limits</h2>
        <DeliveryRulesForm
          key={JSON.stringify(rules)}
          rules={rules}
          timeZone={timeZone}
          lastResult={resultFor(DELIVERY_RULES_INTENT)}
        />
      </section>
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Automatic messages — Stampwise' }]
