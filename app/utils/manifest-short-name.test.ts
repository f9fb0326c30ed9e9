import { expect, test } from 'vitest'
import { manifestShortName, SHORT_NAME_MAX_LENGTH } from './manifest-short-name.ts'

test('a short name is kept as it is, trimmed', () => {
  expect(manifestShortName('Corner Cafe')).toBe('Corner Cafe')
  expect(manifestShortName('  Bakery  ')).toBe('Bakery')
  expect(manifestShortName('Twelve chars')).toBe('Twelve chars')
})

test('a long name is cut at a word’s end, never leaving a space or a dangling sign at the end', () => {
  // Its first 12 characters end in a space ('Corner Cafe '): the review's trailing space.
  expect(manifestShortName('Corner Cafe Bar')).toBe('Corner Cafe')
  expect(manifestShortName('Bread & Butter Bakery')).toBe('Bread')
  expect(manifestShortName('Rosie’s Coffee House')).toBe('Rosie’s')
  expect(manifestShortName('Supercalifragilistic')).toBe('Supercalifra')
  expect(manifestShortName('Café Ünïcödé Straße')).toBe('Café Ünïcödé')
  expect(manifestShortName('☕☕☕☕☕☕☕☕☕☕☕☕☕☕')).toBe('☕☕☕☕☕☕☕☕☕☕☕☕')
})

test('an empty or blank name falls back to the next candidate, then to "Stamp card"', () => {
  expect(manifestShortName('   ', 'Coffee card')).toBe('Coffee card')
  expect(manifestShortName('', '')).toBe('Stamp card')
  expect(manifestShortName('!!!', undefined)).toBe('Stamp card')
})

test('whatever the input, at most 12 characters, never blank at either end', () => {
  const names = [
    'a'.repeat(40),
    ' x '.repeat(20),
    'ab cd ef gh ij kl',
    'Tea\u00a0House\u00a0Garden\u00a0Room',
    '12345678901 2345',
    'A B C D E F G H I',
  ]
  for (const name of names) {
    const short = manifestShortName(name)
    expect(Array.from(short).length, name).toBeLessThanOrEqual(SHORT_NAME_MAX_LENGTH)
    expect(short, name).toBe(short.trim())
    expect(short.length, name).toBeGreaterThan(0)
  }
})
