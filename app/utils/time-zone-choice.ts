import { canonicalTimeZone } from './local-time.ts'

/**
 * The time zone choices: the profile's select grouped by region, and what a browser sends at sign-up. Pure, shared
 * by both sides.
 */

export type TimeZoneGroup = { region: string; zones: { value: string; label: string }[] }

/**
 * IANA names grouped by their first part ('Pacific/Auckland' under 'Pacific', labelled 'Auckland';
 * 'America/Argentina/Buenos_Aires' labelled 'Argentina / Buenos Aires'). Names without a region (UTC) come first,
 * in a group of their own named 'General'. The order within a group is the order given.
 */
export function groupTimeZones(names: readonly string[]): TimeZoneGroup[] {
  const groups = new Map<string, TimeZoneGroup>()
  const general: TimeZoneGroup = { region: 'General', zones: [] }
  for (const name of names) {
    const slash = name.indexOf('/')
    if (slash < 0) {
      general.zones.push({ value: name, label: name })
      continue
    }
    const region = name.slice(0, slash)
    let group = groups.get(region)
    if (!group) groups.set(region, (group = { region, zones: [] }))
    group.zones.push({
      value: name,
      label: name
        .slice(slash + 1)
        .replaceAll('_', ' ')
        .replaceAll('/', ' / '),
    })
  }
  return [...(general.zones.length ? [general] : []), ...groups.values()]
}

/**
 * What a browser sent as its zone at sign-up, canonicalised, or null when it sent none or something that is not a
 * zone this runtime knows (the account then gets UTC: a sign-up is never refused for its zone).
 */
export function browserTimeZone(value: unknown): string | null {
  return typeof value === 'string' ? canonicalTimeZone(value.trim()) : null
}
