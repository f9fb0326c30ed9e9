import { z } from 'zod'
import { AudienceSchema } from './audience.ts'
import { localParts } from './local-time.ts'

/**
 * The time a broadcast is scheduled for (docs/product/automations.md "Scheduled broadcasts"): a date and time read in
 * the business's time zone (users.time_zone), as a datetime-local input sends it ('2026-12-24T16:00'), from a minute
 * ahead up to 90 days ahead. A local time the zone skips (the hour the clocks jump forward) is refused; one it passes
 * twice (the hour they go back) is the first. Pure: the confirm page checks the same on both sides.
 */
export const SCHEDULE_MIN_AHEAD_MS = 60_000
export const SCHEDULE_MAX_AHEAD_DAYS = 90

const LOCAL_INPUT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/

/** The instant a local date and time is in the zone; 'invalid' when it is not one, 'gap' when the zone skips it. */
export function instantOfLocalTime(value: string, timeZone: string): Date | 'invalid' | 'gap' {
  const match = LOCAL_INPUT.exec(value)
  if (!match) return 'invalid'
  const [year, month, day, hour, minute, second = 0] = match.slice(1).map((part) => Number(part ?? 0)) as number[]
  const wall = Date.UTC(year!, month! - 1, day!, hour!, minute!, second)
  const check = new Date(wall)
  if (
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== month! - 1 ||
    check.getUTCDate() !== day ||
    hour! > 23 ||
    minute! > 59 ||
    second > 59
  )
    return 'invalid'
  // The zone's offsets half a day either side cover any change near that time; each gives a candidate, and the
  // ones that read back as the same wall clock are the instants it names (none: a gap; two: the earlier).
  const candidates = [-12, 12].map((hours) => wall - offsetMs(new Date(wall + hours * 3_600_000), timeZone))
  const readsBack = candidates.filter((instant) => sameWall(new Date(instant), timeZone, wall)).sort((a, b) => a - b)
  return readsBack.length ? new Date(readsBack[0]!) : 'gap'
}

function offsetMs(date: Date, timeZone: string): number {
  const { year, month, day, hour, minute, second } = localParts(date, timeZone)
  return Date.UTC(year, month - 1, day, hour, minute, second) - Math.floor(date.getTime() / 1000) * 1000
}

function sameWall(date: Date, timeZone: string, wall: number): boolean {
  const { year, month, day, hour, minute, second } = localParts(date, timeZone)
  return Date.UTC(year, month - 1, day, hour, minute, second) === wall
}

const pad = (value: number) => String(value).padStart(2, '0')

/** An instant as a datetime-local value in the zone, to the minute: '2026-12-24T16:00'. */
export function localInputValue(date: Date, timeZone: string): string {
  const { year, month, day, hour, minute } = localParts(date, timeZone)
  return `${String(year).padStart(4, '0')}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}`
}

export const SCHEDULE_WHEN_MESSAGES = {
  missing: 'Choose a date and time',
  invalid: 'Enter a date and time, like 2026-12-24 16:00',
  gap: 'That time does not exist in your time zone (the clocks change then): choose another time',
  tooSoon: 'Choose a time at least a minute from now',
  tooFar: `Choose a time at most ${SCHEDULE_MAX_AHEAD_DAYS} days from now`,
}

/** The 'Schedule' form: the audience and the local time, read in `timeZone` and checked against `now`. */
export function scheduleSchema(timeZone: string, now: Date) {
  return z.object({
    intent: z.literal('schedule'),
    audience: AudienceSchema,
    when: z.string({ error: SCHEDULE_WHEN_MESSAGES.missing }).transform((value, context) => {
      const instant = instantOfLocalTime(value.trim(), timeZone)
      const problem =
        instant === 'invalid'
          ? SCHEDULE_WHEN_MESSAGES.invalid
          : instant === 'gap'
            ? SCHEDULE_WHEN_MESSAGES.gap
            : instant.getTime() < now.getTime() + SCHEDULE_MIN_AHEAD_MS
              ? SCHEDULE_WHEN_MESSAGES.tooSoon
              : instant.getTime() > now.getTime() + SCHEDULE_MAX_AHEAD_DAYS * 86_400_000
                ? SCHEDULE_WHEN_MESSAGES.tooFar
                : null
      if (problem || typeof instant === 'string') {
        context.addIssue({ code: 'custom', message: problem ?? SCHEDULE_WHEN_MESSAGES.invalid })
        return z.NEVER
      }
      return instant
    }),
  })
}
