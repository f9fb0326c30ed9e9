import { describe, expect, test } from 'vitest'
import { applePassTokenFor, sameToken } from './apple-pass-token.server.ts'

describe('pass authentication tokens', () => {
  test('HMAC-SHA256 of the pass id, base64url, stable per secret and pass', () => {
    const token = applePassTokenFor('secret', 'pass-1')
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(applePassTokenFor(Buffer.from('secret'), 'pass-1')).toBe(token)
    expect(applePassTokenFor('secret', 'pass-2')).not.toBe(token)
    expect(applePassTokenFor('other', 'pass-1')).not.toBe(token)
  })

  test('sameToken compares exactly, and other lengths are simply different', () => {
    const token = applePassTokenFor('secret', 'pass-1')
    expect(sameToken(token, token)).toBe(true)
    const last = token.at(-1) === 'A' ? 'B' : 'A'
    expect(sameToken(token, `${token.slice(0, -1)}${last}`)).toBe(false)
    expect(sameToken(token, token.slice(1))).toBe(false)
    expect(sameToken('', token)).toBe(false)
  })
})
