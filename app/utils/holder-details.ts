import { z } from 'zod'

/**
 * What a card asks its holders (DECISIONS.md "Holders who can be found again"; migration 0024): any of name, e-mail,
 * phone and birthday, at joining or on the pass after the Nth stamp, beside the owner's privacy note. No field is
 * ever required to get a card. The owner's settings form (/account/{cardId}/holder-details) and the holder's form
 * (on the join page or the pass) share these schemas with their actions; the phone number is checked on the server
 * (app/services/holders/phone.server.ts), where the phone library's metadata lives.
 */
export const HOLDER_FIELDS = ['name', 'email', 'phone', 'birthday'] as const
export type HolderField = (typeof HOLDER_FIELDS)[number]

export const HOLDER_FIELD_LABELS: Record<HolderField, string> = {
  name: 'Name',
  email: 'E-mail',
  phone: 'Phone',
  birthday: 'Birthday',
}

export const ASK_WHEN = ['joining', 'after_stamps'] as const
export type AskWhen = (typeof ASK_WHEN)[number]
export const DEFAULT_AFTER_STAMPS = 2
export const MAX_AFTER_STAMPS = 20
export const PRIVACY_NOTE_MAX = 500

/** What a card asks, as `cards.holder_details` keeps it; a card that asks nothing has null there. */
export type HolderDetailsSettings = {
  fields: HolderField[]
  when: AskWhen
  afterStamps: number
  privacyNote: string
  /** ISO 3166 alpha-2: the prefix of a phone number typed without one. */
  phoneCountry: string
}

export const SETTINGS_MESSAGES = {
  fields: 'Choose from name, e-mail, phone and birthday',
  when: 'Choose when to ask',
  afterStamps: `Choose a stamp from 1 to ${MAX_AFTER_STAMPS}`,
  privacyNote: 'Write a short privacy note: what you keep, and why',
  privacyNoteTooLong: `Keep the privacy note to ${PRIVACY_NOTE_MAX} characters`,
  phoneCountry: 'Choose the country of your phone numbers',
} as const

/**
 * The owner's form. `countries` are the phone library's countries (the page's loader sends them, so the browser
 * checks without the library). Asking for anything needs a privacy note; asking for nothing keeps the note and the
 * choices for later. No transform here: conform reads the constraints of the schema (holderDetailsSettingsOf orders
 * the fields after).
 */
export function holderDetailsSettingsSchema(countries: readonly string[]) {
  const M = SETTINGS_MESSAGES
  return z
    .object({
      fields: z
        .array(z.enum(HOLDER_FIELDS, { error: M.fields }), { error: M.fields })
        .max(HOLDER_FIELDS.length, { error: M.fields })
        .default([]),
      when: z.enum(ASK_WHEN, { error: M.when }),
      afterStamps: z
        .number({ error: M.afterStamps })
        .int({ error: M.afterStamps })
        .min(1, { error: M.afterStamps })
        .max(MAX_AFTER_STAMPS, { error: M.afterStamps })
        .default(DEFAULT_AFTER_STAMPS),
      privacyNote: z.string().trim().max(PRIVACY_NOTE_MAX, { error: M.privacyNoteTooLong }).default(''),
      phoneCountry: z.string({ error: M.phoneCountry }).refine((code) => countries.includes(code), M.phoneCountry),
    })
    .superRefine((value, context) => {
      if (value.fields.length > 0 && value.privacyNote === '')
        context.addIssue({ code: 'custom', path: ['privacyNote'], message: M.privacyNote })
    })
}

/** The settings as a card keeps them: the fields in the form's order, whatever order the browser sent. */
export const holderDetailsSettingsOf = (value: HolderDetailsSettings): HolderDetailsSettings => ({
  ...value,
  fields: HOLDER_FIELDS.filter((field) => value.fields.includes(field)),
})

export const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const

/** Days in a month of a leap year: 29 February is a birthday (celebrated on the 28th in other years). */
export const daysInMonth = (month: number) => [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0

export const PROFILE_MESSAGES = {
  name: 'Write your name in 80 characters or fewer',
  email: 'Invalid email format',
  phone: 'Enter a phone number, like the one on your phone’s contact card',
  birthMonth: 'Choose the month of your birthday',
  birthDay: 'Choose the day of your birthday',
  birthdayBoth: 'Choose both the day and the month, or neither',
} as const

const optionalText = z
  .string()
  .trim()
  .optional()
  .transform((value) => (value ? value : undefined))

const optionalNumber = (error: string, max: number) =>
  z.number({ error }).int({ error }).min(1, { error }).max(max, { error }).optional()

/**
 * The holder's form: only the fields the card asks for are read, each optional. A birthday is a day and a month (no
 * year: nobody's age is kept), both or neither, and a day that month has (no 31 February).
 */
export function holderProfileSchema(fields: readonly HolderField[]) {
  const M = PROFILE_MESSAGES
  const asks = (field: HolderField) => fields.includes(field)
  // Only the asked fields are read: a value sent for another one is ignored, never an error the page cannot show.
  const unread = z.unknown().optional()
  return z
    .object({
      name: asks('name') ? optionalText.pipe(z.string().max(80, { error: M.name }).optional()) : unread,
      email: asks('email')
        ? optionalText.pipe(
            z
              .string()
              .max(254, { error: M.email })
              .pipe(z.email({ error: M.email }))
              .optional(),
          )
        : unread,
      phone: asks('phone') ? optionalText.pipe(z.string().max(40, { error: M.phone }).optional()) : unread,
      birthDay: asks('birthday') ? optionalNumber(M.birthDay, 31) : unread,
      birthMonth: asks('birthday') ? optionalNumber(M.birthMonth, 12) : unread,
    })
    .superRefine((value, context) => {
      if (!asks('birthday')) return
      const birthDay = value.birthDay as number | undefined
      const birthMonth = value.birthMonth as number | undefined
      // zod refines an object whose fields failed too: a day or month out of range has its own message already.
      const inRange = (given: number | undefined, max: number) =>
        given === undefined || (Number.isInteger(given) && given >= 1 && given <= max)
      if (!inRange(birthDay, 31) || !inRange(birthMonth, 12)) return
      if ((birthDay === undefined) !== (birthMonth === undefined)) {
        const path = birthDay === undefined ? 'birthDay' : 'birthMonth'
        context.addIssue({ code: 'custom', path: [path], message: M.birthdayBoth })
      } else if (birthDay !== undefined && birthMonth !== undefined && birthDay > daysInMonth(birthMonth)) {
        context.addIssue({
          code: 'custom',
          path: ['birthDay'],
          message: `${MONTHS[birthMonth - 1]} has no ${birthDay}${ordinalSuffix(birthDay)}`,
        })
      }
    })
    .transform((value) => {
      const text = (field: HolderField, given: unknown) =>
        asks(field) && typeof given === 'string' ? given : undefined
      const { birthDay, birthMonth } = value
      return {
        name: text('name', value.name),
        email: text('email', value.email)?.toLowerCase(),
        phone: text('phone', value.phone),
        birthday:
          asks('birthday') && typeof birthDay === 'number' && typeof birthMonth === 'number'
            ? { day: birthDay, month: birthMonth }
            : undefined,
      }
    })
}

export type HolderProfileInput = z.output<ReturnType<typeof holderProfileSchema>>

function ordinalSuffix(day: number) {
  if (day % 100 >= 11 && day % 100 <= 13) return 'th'
  return ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[day % 10] ?? 'th'
}

/** '29 February': a birthday as pages say it. */
export const birthdayText = ({ day, month }: { day: number; month: number }) => `${day} ${MONTHS[month - 1]}`

/** Whether a holder with `stamps` in this round and `rewardsRedeemed` before is asked on the pass now. */
export function askOnPass(
  settings: HolderDetailsSettings | null,
  progress: { stamps: number; rewardsRedeemed: number },
) {
  if (!settings || settings.fields.length === 0 || settings.when !== 'after_stamps') return false
  return progress.rewardsRedeemed > 0 || progress.stamps >= settings.afterStamps
}

/*
 * What a holder gave, as the pages under /p show it: the pass's address may be seen by others (a shared link, a
 * glance at the screen), so the details themselves are only in the download, which only the holder's own browser gets
 * (docs/decisions/065-holder-details.md).
 */
const DOT = '•'

/** 'l•••@example.com' */
export function maskedEmail(email: string) {
  const at = email.lastIndexOf('@')
  return at <= 0 ? DOT.repeat(3) : `${email[0]}${DOT.repeat(3)}${email.slice(at)}`
}

/** '+33•••••••78' (E.164: the country code and the last two digits). */
export const maskedPhone = (phone: string) =>
  phone.length <= 6 ? DOT.repeat(phone.length) : `${phone.slice(0, 3)}${DOT.repeat(phone.length - 5)}${phone.slice(-2)}`

/** 'L••• V•••' */
export const maskedName = (name: string) =>
  name
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => `${[...word][0]}${DOT.repeat(3)}`)
    .join(' ')
