import { z } from 'zod'
import {
  AUTOMATION_DAYS_MAX,
  AUTOMATION_DAYS_MIN,
  AUTOMATION_KINDS,
  DAILY_CAP_MAX,
  WEEKLY_CAP_MAX,
  clockToMinutes,
  isWaitingKind,
  type AutomationKind,
} from './automations.ts'
import { PushMessageSchema } from './push-message.ts'

/**
 * The forms of /account/{cardId}/automations, one schema each, shared by the page (conform in the browser) and its
 * action. The words of an automatic message are checked like a composed message (docs/product/automations.md: title 50,
 * body 180), so the title and body rules and messages are the composer's own.
 */
export const AUTOMATION_MESSAGES = {
  days: `Enter a whole number of days from ${AUTOMATION_DAYS_MIN} to ${AUTOMATION_DAYS_MAX}`,
  clock: 'Enter a time of day such as 21:00',
  sameClock: 'Quiet hours must end at another time than they start (untick them for none)',
  dailyCap: `Choose from 0 to ${DAILY_CAP_MAX} a day`,
  box: 'Tick the box or leave it empty',
  weeklyCap: `Choose from 0 to ${WEEKLY_CAP_MAX} a week`,
} as const
const M = AUTOMATION_MESSAGES

/** The page's forms: one per automatic message (its kind is the intent), the stamp push, quiet hours and caps. */
export const STAMP_PUSH_INTENT = 'stamp-push'
export const DELIVERY_RULES_INTENT = 'delivery-rules'
export const AUTOMATION_INTENTS = [...AUTOMATION_KINDS, STAMP_PUSH_INTENT, DELIVERY_RULES_INTENT] as const
export type AutomationIntent = (typeof AUTOMATION_INTENTS)[number]
export const isAutomationIntent = (value: unknown): value is AutomationIntent =>
  (AUTOMATION_INTENTS as readonly unknown[]).includes(value)

/** A select of 0 to max (as the browser sends it: text), as a number. */
const count = (max: number, error: string) =>
  z
    .enum(Array.from({ length: max + 1 }, (_, value) => String(value)) as [string, ...string[]], { error })
    .transform(Number)

/** A checkbox: 'on' when ticked, absent when not (anything else is no browser's). */
const box = z.boolean({ error: M.box }).optional()

const words = PushMessageSchema.pick({ title: true, body: true }).shape

/** One automatic message: on or off (a checkbox, absent when unticked), its words and, for the two that wait, days. */
export function automationSchema(kind: AutomationKind) {
  const days = z
    .number({ error: M.days })
    .int({ error: M.days })
    .min(AUTOMATION_DAYS_MIN, { error: M.days })
    .max(AUTOMATION_DAYS_MAX, { error: M.days })
  return z.object({
    enabled: box,
    title: words.title,
    body: words.body,
    // The others have no days (their form has no such field; the model stores none).
    days: isWaitingKind(kind) ? days : days.optional(),
  })
}
export type AutomationInput = { enabled?: boolean; title: string; body: string; days?: number }

export const StampPushSchema = z.object({ stampPush: box })

const clock = z
  .string({ error: M.clock })
  .trim()
  .refine((text) => clockToMinutes(text) !== null, { error: M.clock })
  .transform((text) => clockToMinutes(text)!)

/**
 * Quiet hours (a box to have them, and their start and end as times of day in the business's zone) and the caps per
 * holder. Unticked, the times are not needed: the card stores start = end, which means none.
 */
export const DeliveryRulesSchema = z
  .object({
    quietHours: box,
    quietStart: clock.optional(),
    quietEnd: clock.optional(),
    dailyCap: count(DAILY_CAP_MAX, M.dailyCap),
    weeklyCap: count(WEEKLY_CAP_MAX, M.weeklyCap),
  })
  .superRefine((value, context) => {
    if (!value.quietHours) return
    if (value.quietStart === undefined) context.addIssue({ code: 'custom', path: ['quietStart'], message: M.clock })
    if (value.quietEnd === undefined) context.addIssue({ code: 'custom', path: ['quietEnd'], message: M.clock })
    if (value.quietStart !== undefined && value.quietStart === value.quietEnd)
      context.addIssue({ code: 'custom', path: ['quietEnd'], message: M.sameClock })
  })
