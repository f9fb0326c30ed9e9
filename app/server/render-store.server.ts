/**
 * The renders a page cache keeps, oldest dropped first, bounded by count and by the characters of HTML they hold.
 * A count alone let the pass pages of a large audience (2,000 renders of 30–60 kB, two bytes a character once a page
 * holds any non-Latin-1 letter) fill V8's heap: the ten-minute soak ran it out at 128 MiB.
 */
export function renderStore<Entry extends { body: string }>({
  maxEntries,
  maxChars,
}: {
  maxEntries: number
  maxChars: number
}) {
  const entries = new Map<string, Entry>()
  let chars = 0
  return {
    get: (key: string) => entries.get(key),
    /** Stores `entry` as the newest (replacing the key's last one), then drops the oldest past either bound. */
    set(key: string, entry: Entry) {
      const previous = entries.get(key)
      if (previous) {
        chars -= previous.body.length
        entries.delete(key)
      }
      entries.set(key, entry)
      chars += entry.body.length
      for (const [oldest, dropped] of entries) {
        if (entries.size <= maxEntries && chars <= maxChars) break
        entries.delete(oldest)
        chars -= dropped.body.length
      }
    },
    get size() {
      return entries.size
    },
    get chars() {
      return chars
    },
  }
}
