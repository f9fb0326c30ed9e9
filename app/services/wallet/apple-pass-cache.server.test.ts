import { afterEach, describe, expect, test } from 'vitest'
import {
  applePassCacheStats,
  cachedApplePass,
  createApplePassCache,
  resetApplePassCacheForTests,
} from './apple-pass-cache.server.ts'

const bytes = (size: number, fill = 1) => Buffer.alloc(size, fill)

describe('createApplePassCache', () => {
  test('keeps a built pass: the second request does not build', async () => {
    const cache = createApplePassCache(1000)
    let builds = 0
    const build = async () => (builds++, bytes(100))
    const first = await cache.cached('p:1', build)
    expect(await cache.cached('p:1', build)).toBe(first)
    expect(builds).toBe(1)
    expect(cache.stats()).toEqual({ bytes: 100, entries: 1 })
    await cache.cached('p:2', build)
    expect(builds).toBe(2)
  })

  test('two requests for a pass being built wait for one build', async () => {
    const cache = createApplePassCache(1000)
    let builds = 0
    let finish!: (pass: Buffer) => void
    const build = () => (builds++, new Promise<Buffer>((resolve) => (finish = resolve)))
    const both = Promise.all([cache.cached('p:1', build), cache.cached('p:1', build)])
    finish(bytes(10))
    const [a, b] = await both
    expect(a).toBe(b)
    expect(builds).toBe(1)
  })

  test('a failed build is not kept: the next request builds again', async () => {
    const cache = createApplePassCache(1000)
    await expect(cache.cached('p:1', () => Promise.reject(new Error('no logo')))).rejects.toThrow('no logo')
    expect(await cache.cached('p:1', async () => bytes(5))).toHaveLength(5)
    expect(cache.stats().entries).toBe(1)
  })

  test('evicts the least recently used passes to stay within the byte limit', async () => {
    const cache = createApplePassCache(1000)
    for (let index = 0; index < 4; index++) await cache.cached(`p:${index}`, async () => bytes(300, index))
    // 4 × 300 > 1000: p:0 went; touching p:1 makes p:2 the oldest.
    expect(cache.stats()).toEqual({ bytes: 900, entries: 3 })
    await cache.cached('p:1', async () => bytes(1))
    await cache.cached('p:4', async () => bytes(250))
    expect(cache.stats().bytes).toBeLessThanOrEqual(1000)
    let rebuilt = 0
    for (const key of ['p:1', 'p:3', 'p:4']) await cache.cached(key, async () => (rebuilt++, bytes(1)))
    expect(rebuilt).toBe(0)
    await cache.cached('p:2', async () => (rebuilt++, bytes(300)))
    expect(rebuilt).toBe(1)
    expect(cache.stats().bytes).toBeLessThanOrEqual(1000)
  })

  test('a pass bigger than the whole limit is served but not kept', async () => {
    const cache = createApplePassCache(1000)
    await cache.cached('small', async () => bytes(500))
    expect(await cache.cached('huge', async () => bytes(2000))).toHaveLength(2000)
    expect(cache.stats()).toEqual({ bytes: 500, entries: 1 })
  })
})

describe('cachedApplePass', () => {
  afterEach(resetApplePassCacheForTests)

  test('the process cache counts its bytes', async () => {
    await cachedApplePass('pass-1:7', async () => bytes(1234))
    expect(applePassCacheStats()).toEqual({ bytes: 1234, entries: 1 })
    resetApplePassCacheForTests()
    expect(applePassCacheStats()).toEqual({ bytes: 0, entries: 0 })
  })
})
