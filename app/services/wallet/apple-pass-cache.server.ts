/**
 * Built passes kept in memory (docs/product/wallets.md, "When on": at most 50 MB, keyed by pass and version), so
 * opening a pass again, or Wallet fetching it after a push, does not draw and sign again. Least recently used passes go
 * first once the bytes pass the limit; two requests for a pass that is being built wait for the same build.
 */

export const APPLE_PASS_CACHE_BYTES = 50 * 1024 * 1024

export function createApplePassCache(limitBytes: number) {
  // A Map iterates in insertion order: deleting and setting again on use keeps the least recently used first.
  const kept = new Map<string, Buffer>()
  const building = new Map<string, Promise<Buffer>>()
  let bytes = 0

  function keep(key: string, pass: Buffer) {
    if (pass.length > limitBytes) return
    const previous = kept.get(key)
    if (previous) {
      bytes -= previous.length
      kept.delete(key)
    }
    kept.set(key, pass)
    bytes += pass.length
    for (const [oldest, old] of kept) {
      if (bytes <= limitBytes) break
      kept.delete(oldest)
      bytes -= old.length
    }
  }

  async function cached(key: string, build: () => Promise<Buffer>): Promise<Buffer> {
    const hit = kept.get(key)
    if (hit) {
      kept.delete(key)
      kept.set(key, hit)
      return hit
    }
    let pending = building.get(key)
    if (!pending) {
      pending = build()
        .then((pass) => {
          keep(key, pass)
          return pass
        })
        .finally(() => building.delete(key))
      building.set(key, pending)
    }
    return pending
  }

  return {
    cached,
    stats: () => ({ bytes, entries: kept.size }),
    clear() {
      kept.clear()
      building.clear()
      bytes = 0
    },
  }
}

const processCache = createApplePassCache(APPLE_PASS_CACHE_BYTES)

/** The pass kept under `key` (the caller's `${passId}:${version}`), built once by `build` when it is not. */
export function cachedApplePass(key: string, build: () => Promise<Buffer>): Promise<Buffer> {
  return processCache.cached(key, build)
}

export function applePassCacheStats(): { bytes: number; entries: number } {
  return processCache.stats()
}

export function resetApplePassCacheForTests() {
  processCache.clear()
}
