import { z } from 'zod'
import { formatLocalDate, formatLocalDateTime } from './local-time.ts'

/**
 * The stamping rules of a card (docs/product/staff-locations-rules.md; migration 0014's columns and
 * limits), set at /account/{cardId}/rules: the schema is shared by the page (conform in the browser) and its action.
 */
export const MAX_PER_SCAN = 20
/** The longest pause between two stamps of one pass: 7 days, in minutes (cards_stamp_pause_minutes_check). */
export const PAUSE_MAX_MINUTES = 7 * 24 * 60
export const DAILY_CAP_LIMIT = 100

/** The pauses offered in the select, in minutes; anything else is 'Custom'. */
export const PAUSE_PRESETS = [0, 15, 30, 60, 120, 240, 480, 720, 1440, 2880, PAUSE_MAX_MINUTES] as const
export const PAUSE_UNITS = { minutes: 1, hours: 60, days: 1440 } as const
export type PauseUnit = keyof typeof PAUSE_UNITS

export const RULES_MESSAGES = {
  maxPerScan: `Choose from 1 to ${MAX_PER_SCAN} stamps`,
  pause: 'Choose a pause from the list',
  customAmount: 'Enter a whole number of 1 or more',
  customUnit: 'Choose minutes, hours or days',
  customTooLong: 'A pause can be at most 7 days',
  dailyCap: `Enter a whole number from 1 to ${DAILY_CAP_LIMIT}, or leave it empty for no limit`,
} as const
const M = RULES_MESSAGES

/** '2 hours', '1 day', '90 minutes': a pause as the page and its messages say it. */
export function pauseText(minutes: number): string {
  if (minutes === 0) return 'No pause'
  const [unit, size] =
    minutes % PAUSE_UNITS.days === 0
      ? (['day', PAUSE_UNITS.days] as const)
      : minutes % PAUSE_UNITS.hours === 0
        ? (['hour', PAUSE_UNITS.hours] as const)
        : (['minute', 1] as const)
  const amount = minutes / size
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`
}

/** A stored pause as the form shows it: a preset, or 'custom' with the largest unit that divides it. */
export function pauseFields(minutes: number): { pause: string; customAmount: string; customUnit: PauseUnit } {
  if ((PAUSE_PRESETS as readonly number[]).includes(minutes)) {
    return { pause: String(minutes), customAmount: '', customUnit: 'hours' }
  }
  const unit: PauseUnit =
    minutes % PAUSE_UNITS.days === 0 ? 'days' : minutes % PAUSE_UNITS.hours === 0 ? 'hours' : 'minutes'
  return { pause: 'custom', customAmount: String(minutes / PAUSE_UNITS[unit]), customUnit: unit }
}

const wholeNumber = (error: string) => z.number({ error }).int({ error })

/**
 * Most stamps in one scan (1–20), the pause (a preset, or 'custom' with an amount and a unit, up to 7 days) and the
 * daily cap (empty: none). cardRulesOf turns the result into what the card stores (conform's constraints cannot read
 * a schema that transforms).
 */
export const StampingRulesSchema = z
  .object({
    maxPerScan: wholeNumber(M.maxPerScan).min(1, { error: M.maxPerScan }).max(MAX_PER_SCAN, { error: M.maxPerScan }),
    pause: z.enum(['custom', ...PAUSE_PRESETS.map(String)] as [string, ...string[]], { error: M.pause }),
    customAmount: wholeNumber(M.customAmount).min(1, { error: M.customAmount }).optional(),
    customUnit: z.enum(Object.keys(PAUSE_UNITS) as [PauseUnit, ...PauseUnit[]], { error: M.customUnit }).optional(),
    dailyCap: wholeNumber(M.dailyCap)
      .min(1, { error: M.dailyCap })
      .max(DAILY_CAP_LIMIT, { error: M.dailyCap })
      .optional(),
  })
  .superRefine((value, context) => {
    if (value.pause !== 'custom') return
    if (value.customAmount === undefined)
      context.addIssue({ code: 'custom', path: ['customAmount'], message: M.customAmount })
    if (value.customUnit === undefined)
      context.addIssue({ code: 'custom', path: ['customUnit'], message: M.customUnit })
    if (
      value.customAmount !== undefined &&
      value.customUnit !== undefined &&
      value.customAmount * PAUSE_UNITS[value.customUnit] > PAUSE_MAX_MINUTES
    )
      context.addIssue({ code: 'custom', path: ['customAmount'], message: M.customTooLong })
  })
export type StampingRulesInput = z.output<typeof StampingRulesSchema>

/** The checked form as the card stores it: the pause in minutes, no daily cap as null. */
export function cardRulesOf({ maxPerScan, pause, customAmount, customUnit, dailyCap }: StampingRulesInput) {
  return {
    maxStampsPerScan: maxPerScan,
    stampPauseMinutes: pause === 'custom' ? customAmount! * PAUSE_UNITS[customUnit!] : Number(pause),
    dailyStampCap: dailyCap ?? null,
  }
}

/** When a refused stamp becomes possible, in the business's zone: '14:35' later today, else '28 Nov 2026, 09:00'. */
export function nextStampWhen(at: Date, timeZone: string, now = new Date()): string {
  const full = formatLocalDateTime(at, timeZone)
  return formatLocalDate(at, timeZone) === formatLocalDate(now, timeZone) ? full.split(', ').pop()! : full
}
