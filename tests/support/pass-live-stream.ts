/**
 * An open pass page's event stream, GET /p/{passId}/live (docs/decisions/050-open-pass-refresh.md), as a test reads
 * it: the events as they come, and a wait for the next one named `event` (or the stream's end). `get` asks the app
 * (a test server's fetch, or one instance of several).
 */
export async function openPassStream(
  get: (pathname: string, init: RequestInit) => Promise<Response>,
  passId: string,
  version?: string,
) {
  const controller = new AbortController()
  const response = await get(`/p/${passId}/live${version ? `?v=${encodeURIComponent(version)}` : ''}`, {
    signal: controller.signal,
    headers: { Accept: 'text/event-stream' },
  })
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let buffered = ''
  let ended = false
  async function next(event: string, timeoutMs = 2_000): Promise<string | 'ended'> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const found = new RegExp(`event: ${event}\\ndata: ([^\\n]*)\\n\\n`).exec(buffered)
      if (found) {
        buffered = buffered.slice(found.index + found[0].length)
        return found[1]!
      }
      if (ended) return 'ended'
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`no '${event}' event within ${timeoutMs} ms; got: ${JSON.stringify(buffered)}`)
      const chunk = await Promise.race([
        reader.read(),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), left)),
      ])
      if (chunk === null) continue
      if (chunk.done) ended = true
      else buffered += decoder.decode(chunk.value, { stream: true })
    }
  }
  return { response, next, close: () => controller.abort() }
}
