import http from 'node:http'

/**
 * A request through node:http, for what fetch hides: a body streamed in pieces (chunked, or with a declared
 * length) that the server may answer before it has all arrived, and the connection it came on.
 */
export type RawAnswer = {
  status: number
  headers: http.IncomingHttpHeaders
  text: string
  /** Whether the request went out on a connection an earlier request had used (keep-alive). */
  reusedSocket: boolean
  /** The most memory (RSS) this process held while the body was being sent. */
  peakRss: number
}

/**
 * Sends `total` bytes (`head`, then filler up to `total`) in 64 KB pieces, waiting for the socket to drain between
 * them, so the sender itself holds next to nothing. With `declareLength` the length is sent up front, else the body
 * is chunked. Sending goes on after the answer arrives, until the whole body is out or the server closes.
 */
export function streamBody(
  url: URL,
  {
    headers = {},
    head = '',
    total,
    declareLength,
    fill = 'x',
    agent,
    method = 'POST',
    rawPath,
  }: {
    headers?: Record<string, string>
    head?: string
    total: number
    declareLength: boolean
    fill?: string
    agent?: http.Agent
    method?: string
    /** The request target exactly as sent (`/a/../b`), which a URL would normalise. */
    rawPath?: string
  },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method,
      agent,
      ...(rawPath ? { path: rawPath } : {}),
      headers: { ...headers, ...(declareLength ? { 'Content-Length': String(total) } : {}) },
    })
    let peakRss = process.memoryUsage().rss
    let answer: Omit<RawAnswer, 'peakRss'> | undefined
    let sent = 0
    let done = false
    const finish = () => {
      if (done || !answer) return
      done = true
      resolve({ ...answer, peakRss })
    }
    request.on('response', (response) => {
      let text = ''
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
      response.on('end', () => {
        answer = { status: response.statusCode!, headers: response.headers, text, reusedSocket: request.reusedSocket }
        if (sent >= total || request.destroyed) finish()
      })
    })
    // The server closing the connection after its answer (a body far over the limit) ends the sending.
    request.on('error', (error) => (answer ? finish() : reject(error)))
    request.on('close', () => setImmediate(finish))

    const filler = Buffer.alloc(64 * 1024, fill)
    const headBytes = Buffer.from(head)
    const write = () => {
      while (sent < total && !request.destroyed) {
        peakRss = Math.max(peakRss, process.memoryUsage().rss)
        const piece =
          sent < headBytes.length
            ? headBytes.subarray(sent, sent + filler.length)
            : filler.subarray(0, Math.min(filler.length, total - sent))
        sent += piece.length
        if (!request.write(piece)) return void request.once('drain', write)
      }
      if (!request.destroyed) request.end()
      if (answer) finish()
    }
    write()
  })
}

/** A small request on `agent`'s kept-alive connection, to show the connection still works. */
export function rawRequest(
  url: URL,
  {
    method = 'GET',
    headers = {},
    body,
    agent,
    rawPath,
  }: { method?: string; headers?: Record<string, string>; body?: string; agent?: http.Agent; rawPath?: string },
) {
  return streamBody(url, {
    method,
    headers,
    head: body ?? '',
    total: Buffer.byteLength(body ?? ''),
    declareLength: true,
    agent,
    rawPath,
  }).catch((error: Error) => {
    throw new Error(`${method} ${url.pathname}: ${error.message}`)
  })
}
