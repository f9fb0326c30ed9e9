import { describe, expect, test } from 'vitest'
import { comesFromOwnOrigin } from './cross-site-guard.server.ts'

const OWN = ['https://app.stampwise.example', 'http://192.168.1.20:3000']

describe('where a browser request comes from', () => {
  test.for([
    [{ origin: 'https://app.stampwise.example', fetchSite: undefined }, true],
    [{ origin: 'https://APP.stampwise.example:443', fetchSite: undefined }, true],
    [{ origin: 'http://192.168.1.20:3000', fetchSite: 'same-origin' }, true],
    [{ origin: undefined, fetchSite: 'same-origin' }, true],
    [{ origin: undefined, fetchSite: 'none' }, true],
    [{ origin: undefined, fetchSite: undefined }, true],
    [{ origin: 'https://evil.example', fetchSite: 'same-origin' }, false],
    [{ origin: 'http://app.stampwise.example', fetchSite: undefined }, false],
    [{ origin: 'https://app.stampwise.example.evil.example', fetchSite: undefined }, false],
    [{ origin: 'null', fetchSite: 'same-origin' }, false],
    [{ origin: 'garbage', fetchSite: undefined }, false],
    [{ origin: undefined, fetchSite: 'cross-site' }, false],
    [{ origin: undefined, fetchSite: 'same-site' }, false],
  ] as const)('%j → %s', ([headers, expected]) => {
    expect(comesFromOwnOrigin(headers, OWN)).toBe(expected)
  })
})
