import { expect, test } from 'vitest'
import { renderStore } from './render-store.server.ts'

const page = (chars: number) => ({ body: 'x'.repeat(chars) })

test('drops the oldest renders past the character bound, and counts a replaced render once', () => {
  const store = renderStore({ maxEntries: 100, maxChars: 1_000 })
  store.set('a', page(400))
  store.set('b', page(400))
  store.set('a', page(300)) // replaced: a is now the newest
  expect(store.chars).toBe(700)
  store.set('c', page(400)) // 1,100: b, the oldest, goes
  expect([store.get('a'), store.get('b'), store.get('c')].map(Boolean)).toEqual([true, false, true])
  expect(store.chars).toBe(700)
  store.set('d', page(2_000)) // larger than the bound alone: everything goes, itself last
  expect(store.size).toBe(0)
  expect(store.chars).toBe(0)
})

test('drops the oldest renders past the count bound', () => {
  const store = renderStore({ maxEntries: 2, maxChars: 1_000_000 })
  store.set('a', page(1))
  store.set('b', page(1))
  store.set('c', page(1))
  expect([store.get('a'), store.get('b'), store.get('c')].map(Boolean)).toEqual([false, true, true])
})
