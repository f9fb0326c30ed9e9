import { describe, expect, test } from 'vitest'
import { normalizePhone, phoneCountryOptions, phoneText } from './phone.server.ts'

describe('normalizePhone', () => {
  test('a national number takes the card’s country; one with a prefix keeps its own', () => {
    expect(normalizePhone('030 901820', 'DE')).toBe('+4930901820')
    expect(normalizePhone('0151 2345 6789', 'DE')).toBe('+4915123456789')
    expect(normalizePhone('+33 6 12 34 56 78', 'DE')).toBe('+33612345678')
    expect(normalizePhone('0033 6 12 34 56 78', 'DE')).toBe('+33612345678')
    expect(normalizePhone('(212) 555-0123', 'US')).toBe('+12125550123')
  })

  test('a number of another country typed without its prefix is refused, as are shapes that are not numbers', () => {
    // A New York number read as French is no French number, nor Spanish.
    expect(normalizePhone('(212) 555-0123', 'FR')).toBeNull()
    expect(normalizePhone('(212) 555-0123', 'ES')).toBeNull()
    // A French mobile without +33 is not a British one.
    expect(normalizePhone('06 12 34 56 78', 'GB')).toBeNull()
    for (const value of ['', '12', 'call me', '+49 30', '+999 1234567', '0'.repeat(41), '+49 30 901820; drop']) {
      expect(normalizePhone(value, 'DE'), value).toBeNull()
    }
  })

  test('numbers read back as their country writes them; the countries are listed by name', () => {
    expect(phoneText('+4930901820')).toBe('+49 30 901820')
    const options = phoneCountryOptions()
    expect(options.find(([code]) => code === 'DE')).toEqual(['DE', 'Germany'])
    expect(options.length).toBeGreaterThan(200)
  })
})
