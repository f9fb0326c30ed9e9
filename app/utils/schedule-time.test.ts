import { expect, test } from 'vitest'
import { instantOfLocalTime, localInputValue, SCHEDULE_WHEN_MESSAGES, scheduleSchema } from './schedule-time.ts'

test('a local time is read in the zone: the DST gap does not exist, the repeated hour is its first pass', () => {
  // Berlin springs forward at 02:00 on 29 March 2026 (to 03:00) and falls back at 03:00 on 25 October.
  expect(instantOfLocalTime('2026-03-29T02:30', 'Europe/Berlin')).toBe('gap')
  expect(instantOfLocalTime('2026-03-29T03:30', 'Europe/Berlin')).toEqual(new Date('2026-03-29T01:30:00Z'))
  expect(instantOfLocalTime('2026-10-25T02:30', 'Europe/Berlin')).toEqual(new Date('2026-10-25T00:30:00Z'))
  expect(instantOfLocalTime('2026-12-24T16:00', 'Pacific/Auckland')).toEqual(new Date('2026-12-24T03:00:00Z'))
  expect(instantOfLocalTime('2026-12-24T16:00:30', 'UTC')).toEqual(new Date('2026-12-24T16:00:30Z'))
  for (const bad of ['2026-02-30T16:00', '2026-12-24 16:00', '2026-12-24T24:00', 'tomorrow', ''])
    expect(instantOfLocalTime(bad, 'UTC'), bad).toBe('invalid')
  expect(localInputValue(new Date('2026-12-24T03:00:00Z'), 'Pacific/Auckland')).toBe('2026-12-24T16:00')
})

test('the schedule form takes a minute ahead up to 90 days ahead, in the zone', () => {
  const now = new Date('2026-03-28T12:00:00Z')
  const schema = scheduleSchema('Europe/Berlin', now)
  const parse = (when: string) => schema.safeParse({ intent: 'schedule', audience: 'all', when })
  const problem = (when: string) => parse(when).error?.issues[0]?.message
  expect(parse('2026-03-28T13:02').data?.when).toEqual(new Date('2026-03-28T12:02:00Z'))
  expect(problem('2026-03-28T13:00')).toBe(SCHEDULE_WHEN_MESSAGES.tooSoon)
  expect(problem('2026-03-28T12:00')).toBe(SCHEDULE_WHEN_MESSAGES.tooSoon)
  expect(problem('2026-03-29T02:15')).toBe(SCHEDULE_WHEN_MESSAGES.gap)
  expect(problem('2026-06-27T14:00')).toBe(SCHEDULE_WHEN_MESSAGES.tooFar)
  expect(parse('2026-06-26T14:00').success).toBe(true)
  expect(problem('soon')).toBe(SCHEDULE_WHEN_MESSAGES.invalid)
  expect(schema.safeParse({ intent: 'schedule', audience: 'everyone', when: '2026-03-29T10:00' }).success).toBe(false)
})
