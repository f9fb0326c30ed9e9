// The messages browsers and Vite give when a lazily loaded script or stylesheet cannot be fetched — typically
// after a deploy replaced the hashed files an open tab still refers to. A reload fetches the new ones.
const CHUNK_ERROR_PATTERNS = [
  /Failed to fetch dynamically imported module/i,
  /error loading dynamically imported module/i,
  /Importing a module script failed/i,
  /Unable to preload CSS/i,
  /ChunkLoadError/i,
  /Loading chunk [\w-]+ failed/i,
]

export const CHUNK_RELOAD_DELAY_MS = 3_000

export function isChunkLoadError(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const text = `${error.name}: ${error.message}`
  return CHUNK_ERROR_PATTERNS.some((pattern) => pattern.test(text))
}
