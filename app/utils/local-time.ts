/**
 * Dates and times in the business's time zone (docs/product/insights-and-exports.md: a day is a calendar
 * day in the business's time zone). Pure and shared by both sides; formatters are made once per zone.
 */

export const DEFAULT_TIME_ZONE = 'UTC'

/** A calendar day, 'YYYY-MM-DD'. */
export type LocalDay = string

const partsFormatters = new Map<string, Intl.DateTimeFormat>()
const labelFormatters = new Map<string, Intl.DateTimeFormat>()

function partsFormatter(timeZone: string) {
  let formatter = partsFormatters.get(timeZone)
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'short',
    })
    partsFormatters.set(timeZone, formatter)
  }
  return formatter
}

export type LocalParts = {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
  /** 0 = Sunday … 6 = Saturday. */
  weekday: number
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']

/** The wall-clock reading of an instant in a time zone. */
export function localParts(date: Date, timeZone: string): LocalParts {
  const parts: Record<string, string> = {}
  for (const part of partsFormatter(timeZone).formatToParts(date)) parts[part.type] = part.value
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: WEEKDAYS.indexOf(parts.weekday ?? ''),
  }
}

const pad = (value: number, length = 2) => String(Math.abs(value)).padStart(length, '0')

/** The calendar day an instant falls on in a time zone. */
export function localDay(date: Date, timeZone: string): LocalDay {
  const { year, month, day } = localParts(date, timeZone)
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`
}

/** Minutes the zone is ahead of UTC at that instant (Pacific/Auckland in summer: 780). */
export function offsetMinutes(date: Date, timeZone: string): number {
  const { year, month, day, hour, minute, second } = localParts(date, timeZone)
  const wall = Date.UTC(year, month - 1, day, hour, minute, second)
  return Math.round((wall - Math.floor(date.getTime() / 1000) * 1000) / 60_000)
}

/** '+13:00', '-10:00', '+00:00'. */
export function offsetText(minutes: number): string {
  return `${minutes < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`
}

/** ISO 8601 with the zone's offset at that instant: '2026-11-27T14:05:09+13:00'. */
export function isoWithOffset(date: Date, timeZone: string): string {
  const { year, month, day, hour, minute, second } = localParts(date, timeZone)
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}:${pad(second)}${offsetText(offsetMinutes(date, timeZone))}`
}

/** The calendar day `days` after (or before) a day. */
export function addDays(day: LocalDay, days: number): LocalDay {
  const date = new Date(`${day}T00:00:00Z`)
  date.setUTCDate(date.getUTCDate() + days)
  return date.toISOString().slice(0, 10)
}

/**
 * The instant a calendar day starts in a time zone (its first existing minute when a DST change skips midnight).
 * Found from the offset, then checked once more: an offset change near midnight moves it by at most an hour.
 */
export function startOfLocalDay(day: LocalDay, timeZone: string): Date {
  const midnightUtc = Date.parse(`${day}T00:00:00Z`)
  let guess = midnightUtc - offsetMinutes(new Date(midnightUtc), timeZone) * 60_000
  guess = midnightUtc - offsetMinutes(new Date(guess), timeZone) * 60_000
  // A zone whose clocks jump over midnight: the day starts at the first instant that reads as that day.
  while (localDay(new Date(guess), timeZone) < day) guess += 15 * 60_000
  while (localDay(new Date(guess - 15 * 60_000), timeZone) === day) guess -= 15 * 60_000
  return new Date(guess)
}

function labelFormatter(timeZone: string, kind: 'date' | 'dateTime' | 'dayMonth') {
  const key = `${kind}\u0000${timeZone}`
  let formatter = labelFormatters.get(key)
  if (!formatter) {
    formatter = new Intl.DateTimeFormat(
      'en-GB',
      kind === 'date'
        ? { timeZone, day: 'numeric', month: 'short', year: 'numeric' }
        : kind === 'dayMonth'
          ? { timeZone, day: 'numeric', month: 'short' }
          : {
              timeZone,
              day: 'numeric',
              month: 'short',
              year: 'numeric',
              hour: '2-digit',
              minute: '2-digit',
              hourCycle: 'h23',
            },
    )
    labelFormatters.set(key, formatter)
  }
  return formatter
}

/** '27 Nov 2026' in the business's zone. */
export const formatLocalDate = (date: Date, timeZone: string) => labelFormatter(timeZone, 'date').format(date)

/** '27 Nov 2026, 14:05' in the business's zone. */
export const formatLocalDateTime = (date: Date, timeZone: string) => labelFormatter(timeZone, 'dateTime').format(date)

/** A calendar day as a label: '27 Nov 2026', or '27 Nov' when `short`. */
export function formatDay(day: LocalDay, short = false): string {
  return labelFormatter('UTC', short ? 'dayMonth' : 'date').format(new Date(`${day}T12:00:00Z`))
}

let zoneList: string[] | null = null

/** Every IANA zone this runtime knows, with UTC, sorted: the profile's select. */
export function timeZoneNames(): string[] {
  if (!zoneList) {
    const names = new Set<string>(Intl.supportedValuesOf('timeZone'))
    names.add(DEFAULT_TIME_ZONE)
    zoneList = [...names].sort()
  }
  return zoneList
}

/**
 * The zone's canonical IANA name ('Asia/Calcutta' → 'Asia/Kolkata', 'utc' → 'UTC'), or null when this runtime does
 * not know it. What a browser sends goes through it before it is stored.
 */
export function canonicalTimeZone(name: string): string | null {
  if (!name || name.length > 64 || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return null
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone
    if (resolved === 'Etc/UTC' || resolved === 'Etc/GMT' || resolved === 'GMT') return DEFAULT_TIME_ZONE
    return resolved
  } catch {
    return null
  }
}

/**
 * isoWithOffset for an instant whose offset is already known (whole seconds since the epoch, the zone's offset in
 * seconds, as SQL computes them beside the row): the exports write a million of these, and Intl's formatToParts per
 * row would take most of the export's time.
 */
export function isoAtOffset(epochSeconds: number, offsetSeconds: number): string {
  const wall = new Date((epochSeconds + offsetSeconds) * 1000).toISOString()
  return `${wall.slice(0, 19)}${offsetText(Math.round(offsetSeconds / 60))}`
}
