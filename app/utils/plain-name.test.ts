import { describe, expect, test } from 'vitest'
import { isPlainName, quotedName } from './plain-name.ts'

describe('plain names', () => {
  test.each(['Maria', 'Corner Café', "Joe's Diner", 'Crème & Co.', 'St. John’s Bakery', 'Café No. 5', 'Zoë-Ann (Sat)'])(
    '%s is plain',
    (name) => expect(isPlainName(name)).toBe(true),
  )
  test.each([
    'https://evil.example',
    'evil.com',
    'www.win',
    'me@example.org',
    '<b>Boss</b>',
    'Call 555/123',
    'Line\nbreak',
    'pay: now',
  ])('%s is refused', (name) => expect(isPlainName(name)).toBe(false))
})

describe('a name quoted in a mail', () => {
  test('plain names are quoted as they are', () => {
    expect(quotedName('Corner Café', 'A Stampwise business')).toBe("'Corner Café'")
  })
  test('links, addresses and markup lose what makes them one', () => {
    expect(quotedName('Visit https://evil.example/pay now', 'x')).toBe("'Visit https evil example pay now'")
    expect(quotedName('boss@evil.com', 'x')).toBe("'boss evil com'")
    expect(quotedName('<b>Boss</b>', 'x')).toBe("'b Boss b'")
  })
  test('nothing left: the fallback', () => {
    expect(quotedName('☕ 🎉', 'A Stampwise business')).toBe('A Stampwise business')
  })
})
