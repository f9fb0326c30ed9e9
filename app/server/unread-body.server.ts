import { type ServerResponse } from 'node:http'
import { DISCARD_LIMIT } from './body-limit.server.ts'
import type express from 'express'

/**
 * An answer sent before the request's body was read to its end (a refusal of the request guards, an action that
 * ignores the body, a 405) must still reach a client that keeps sending (docs/product/hardening.md, "Body limits";
 * docs/decisions/051-form-entries-and-discard-limit.md):
 * - once the answer is sent, the rest of the body is read and thrown away, up to DISCARD_LIMIT; past it the
 *   connection is closed. Unread, it would stay on a kept-alive connection and the client's next request on it
 *   would wait for the keep-alive timeout, then fail with a reset;
 * - a client that asked to close the connection (`Connection: close`, HTTP/1.0) would have it closed by Node as
 *   soon as the answer is written, while it still sends: its system then resets the connection and the answer,
 *   already received, is lost (EPIPE, ECONNRESET). Such an answer keeps the connection open, and it is closed
 *   once the body has been read.
 */
export const discardUnreadBodies: express.RequestHandler = (req, res, next) => {
  let closeAfterBody = false
  const raw = res as ServerResponse
  const writeHead = raw.writeHead
  raw.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    if (!this.headersSent && !req.complete && !this.shouldKeepAlive && !this.hasHeader('Connection')) {
      this.shouldKeepAlive = true
      closeAfterBody = true
    }
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args)
  } as ServerResponse['writeHead']

  // Before Node's own handler of 'finish', which would otherwise "dump" the unread body: its pieces are then dropped
  // inside the HTTP parser, uncounted, and the discard limit could never close the connection.
  res.prependOnceListener('finish', () => {
    if (req.complete || req.destroyed) {
      if (closeAfterBody) req.socket.end()
      return
    }
    let discarded = 0
    // Remix's reader of the body (paused, since nobody reads it any more) lets go of it.
    req.removeAllListeners('data')
    req.on('data', (chunk: Buffer) => {
      discarded += chunk.length
      if (discarded > DISCARD_LIMIT) req.socket.destroy()
    })
    if (closeAfterBody) req.once('end', () => req.socket.end())
    req.resume()
  })
  next()
}
