import { parseWithZod } from '@conform-to/zod/v4'
import { describe, expect, test } from 'vitest'
import {
  askOnPass,
  birthdayText,
  holderDetailsSettingsOf,
  holderDetailsSettingsSchema,
  holderProfileSchema,
  maskedEmail,
  maskedName,
  maskedPhone,
  type HolderDetailsSettings,
} from './holder-details.ts'

const form = (entries: [string, string][]) => {
  const data = new FormData()
  for (const [name, value] of entries) data.append(name, value)
  return data
}
const profile = (fields: Parameters<typeof holderProfileSchema>[0], entries: [string, string][]) =>
  parseWithZod(form(entries), { schema: holderProfileSchema(fields) })
const ALL = ['name', 'email', 'phone', 'birthday'] as const

describe('the holder’s form', () => {
  test('every field is optional; what is given comes out trimmed, the e-mail in lower case', () => {
    const empty = profile(ALL, [])
    expect(empty.status === 'success' && empty.value).toEqual({})
    const given = profile(ALL, [
      ['name', '  Lena Vogel '],
      ['email', ' Lena@Example.COM'],
      ['birthDay', '29'],
      ['birthMonth', '2'],
    ])
    expect(given.status === 'success' && given.value).toEqual({
      name: 'Lena Vogel',
      email: 'lena@example.com',
      birthday: { day: 29, month: 2 },
    })
  })

  test('a day the month does not have, half a birthday and a bad e-mail are refused with their words', () => {
    const errors = (entries: [string, string][]) => {
      const result = profile(ALL, entries)
      return result.status === 'error' ? result.error : null
    }
    expect(
      errors([
        ['birthDay', '31'],
        ['birthMonth', '2'],
      ]),
    ).toEqual({ birthDay: ['February has no 31st'] })
    expect(
      errors([
        ['birthDay', '30'],
        ['birthMonth', '2'],
      ]),
    ).toEqual({ birthDay: ['February has no 30th'] })
    expect(
      errors([
        ['birthDay', '31'],
        ['birthMonth', '11'],
      ]),
    ).toEqual({ birthDay: ['November has no 31st'] })
    expect(errors([['birthMonth', '5']])).toEqual({ birthDay: ['Choose both the day and the month, or neither'] })
    expect(
      errors([
        ['birthDay', '32'],
        ['birthMonth', '1'],
      ]),
    ).toEqual({ birthDay: ['Choose the day of your birthday'] })
    expect(errors([['email', 'lena@']])).toEqual({ email: ['Invalid email format'] })
    expect(errors([['name', 'x'.repeat(81)]])).toEqual({ name: ['Write your name in 80 characters or fewer'] })
  })

  test('fields the card does not ask for are not read, whatever they hold', () => {
    const result = profile(
      ['email'],
      [
        ['email', 'a@example.com'],
        ['name', 'x'.repeat(500)],
        ['birthDay', '31'],
        ['birthMonth', '2'],
      ],
    )
    expect(result.status === 'success' && result.value).toEqual({ email: 'a@example.com' })
  })
})

describe('the owner’s settings', () => {
  const settings = (entries: [string, string][]) =>
    parseWithZod(form(entries), { schema: holderDetailsSettingsSchema(['DE', 'FR']) })
  const base: [string, string][] = [
    ['when', 'after_stamps'],
    ['afterStamps', '2'],
    ['privacyNote', 'We keep it to find your card.'],
    ['phoneCountry', 'DE'],
  ]

  test('fields in any order come out in the form’s; asking nothing needs no note', () => {
    const result = settings([...base, ['fields', 'phone'], ['fields', 'name']])
    expect(result.status).toBe('success')
    if (result.status === 'success') expect(holderDetailsSettingsOf(result.value).fields).toEqual(['name', 'phone'])
    expect(
      settings([
        ['when', 'joining'],
        ['phoneCountry', 'FR'],
      ]).status,
    ).toBe('success')
  })

  test('a note is needed to ask; unknown fields and countries are refused', () => {
    const errors = (entries: [string, string][]) => {
      const result = settings(entries)
      return result.status === 'error' ? result.error : null
    }
    expect(errors([...base.filter(([name]) => name !== 'privacyNote'), ['fields', 'email']])).toEqual({
      privacyNote: ['Write a short privacy note: what you keep, and why'],
    })
    expect(errors([...base, ['fields', 'password']])).toEqual({
      'fields[0]': ['Choose from name, e-mail, phone and birthday'],
    })
    expect(errors([...base.filter(([name]) => name !== 'phoneCountry'), ['phoneCountry', 'US']])).toEqual({
      phoneCountry: ['Choose the country of your phone numbers'],
    })
  })
})

test('the pass asks after the Nth stamp of the first round, from then on, and only when the card asks then', () => {
  const settings: HolderDetailsSettings = {
    fields: ['email'],
    when: 'after_stamps',
    afterStamps: 2,
    privacyNote: 'Note',
    phoneCountry: 'DE',
  }
  expect(askOnPass(settings, { stamps: 1, rewardsRedeemed: 0 })).toBe(false)
  expect(askOnPass(settings, { stamps: 2, rewardsRedeemed: 0 })).toBe(true)
  expect(askOnPass(settings, { stamps: 0, rewardsRedeemed: 1 })).toBe(true)
  expect(askOnPass({ ...settings, when: 'joining' }, { stamps: 5, rewardsRedeemed: 0 })).toBe(false)
  expect(askOnPass({ ...settings, fields: [] }, { stamps: 5, rewardsRedeemed: 0 })).toBe(false)
  expect(askOnPass(null, { stamps: 5, rewardsRedeemed: 0 })).toBe(false)
  expect(birthdayText({ day: 29, month: 2 })).toBe('29 February')
})

test('the pages under /p show what a holder gave only masked', () => {
  expect(maskedEmail('lena.vogel@example.com')).toBe('l•••@example.com')
  expect(maskedEmail('nonsense')).toBe('•••')
  expect(maskedPhone('+33612345678')).toBe('+33•••••••78')
  expect(maskedName('Lena  Vogel')).toBe('L••• V•••')
  expect(maskedName('Émile')).toBe('É•••')
})
