import { describe, expect, test } from 'vitest'
import { nextStampWhen } from './stamping-rules.ts'

describe('nextStampWhen', () => {
  // 21:28 UTC on 27 Nov 2026 is 22:28 in Berlin; a two-hour pause ends after Berlin's midnight.
  const now = new Date('2026-11-27T21:28:00Z')

  test('later the same local day: the time alone', () => {
    expect(nextStampWhen(new Date('2026-11-27T22:05:00Z'), 'Europe/Berlin', now)).toBe('23:05')
  })

  test('after the business’s midnight: the date too', () => {
    expect(nextStampWhen(new Date('2026-11-27T23:28:00Z'), 'Europe/Berlin', now)).toBe('28 Nov 2026, 00:28')
  })

  test('the same instant is another day in another zone', () => {
    // 23:28 UTC is still 27 Nov in New York (18:28), where `now` is 16:28.
    expect(nextStampWhen(new Date('2026-11-27T23:28:00Z'), 'America/New_York', now)).toBe('18:28')
  })
})
