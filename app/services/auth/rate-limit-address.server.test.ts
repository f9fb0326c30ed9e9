import { describe, expect, test } from 'vitest'
import { rateLimitAddress } from './rate-limit-address.server.ts'

describe('rateLimitAddress', () => {
  test('an IPv4 address counts on its own, also when seen as IPv4-mapped IPv6', () => {
    expect(rateLimitAddress('203.0.113.7')).toBe('203.0.113.7')
    expect(rateLimitAddress('::ffff:203.0.113.7')).toBe('203.0.113.7')
    expect(rateLimitAddress('::FFFF:127.0.0.1')).toBe('127.0.0.1')
  })

  test('IPv6 addresses of one /64 share a key, however they are written', () => {
    const key = '2001:db8:1:2::/64'
    for (const address of [
      '2001:db8:1:2::1',
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:0DB8:0001:0002:0000:0000:0000:0001',
      '2001:db8:1:2:aaaa::',
      '2001:db8:1:2:0:0:1.2.3.4',
      '2001:db8:1:2::1%eth0',
    ]) {
      expect(rateLimitAddress(address), address).toBe(key)
    }
  })

  test('another /64 is another key', () => {
    expect(rateLimitAddress('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64')
    expect(rateLimitAddress('::1')).toBe('0:0:0:0::/64')
    expect(rateLimitAddress('fe80::1')).toBe('fe80:0:0:0::/64')
    expect(rateLimitAddress('2001:db8::')).toBe('2001:db8:0:0::/64')
  })

  test('anything else is kept as it is', () => {
    expect(rateLimitAddress('unknown')).toBe('unknown')
  })
})
