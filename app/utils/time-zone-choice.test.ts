import { describe, expect, test } from 'vitest'
import { timeZoneNames } from './local-time.ts'
import { browserTimeZone, groupTimeZones } from './time-zone-choice.ts'

describe('groupTimeZones', () => {
  test('groups by region, labels by the rest, names without a region first', () => {
    expect(groupTimeZones(['America/Argentina/Buenos_Aires', 'America/New_York', 'Pacific/Auckland', 'UTC'])).toEqual([
      { region: 'General', zones: [{ value: 'UTC', label: 'UTC' }] },
      {
        region: 'America',
        zones: [
          { value: 'America/Argentina/Buenos_Aires', label: 'Argentina / Buenos Aires' },
          { value: 'America/New_York', label: 'New York' },
        ],
      },
      { region: 'Pacific', zones: [{ value: 'Pacific/Auckland', label: 'Auckland' }] },
    ])
  })

  test('keeps every zone of the runtime exactly once', () => {
    const names = timeZoneNames()
    const grouped = groupTimeZones(names).flatMap((group) => group.zones.map((zone) => zone.value))
    expect(grouped.sort()).toEqual([...names].sort())
  })

  test('an empty list has no groups', () => {
    expect(groupTimeZones([])).toEqual([])
  })
})

describe('browserTimeZone', () => {
  test('a zone the runtime knows, canonical', () => {
    expect(browserTimeZone('Pacific/Auckland')).toBe('Pacific/Auckland')
    expect(browserTimeZone(' Pacific/Honolulu ')).toBe('Pacific/Honolulu')
    expect(browserTimeZone('Etc/UTC')).toBe('UTC')
  })

  test('nothing, or anything that is not a zone, is null', () => {
    for (const value of [
      undefined,
      null,
      '',
      'Mars/Olympus',
      'x'.repeat(200),
      42,
      ['UTC'],
      { zone: 'UTC' },
      '../etc',
    ]) {
      expect(browserTimeZone(value)).toBeNull()
    }
  })
})
