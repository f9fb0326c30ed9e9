import { type IncomingMessage } from 'node:http'
import { LOGO_MAX_BYTES, LOGO_MESSAGES } from '#app/utils/logo-image.ts'
import { type Refusal } from './request-refusal.server.ts'

/**
 * Request bodies are limited before anything reads them (DECISIONS.md, "Hardening decided after an outside
 * review"): a 200 MB form posted to /login was read whole into memory (2.6 GB) by `request.formData()`.
 *   forms (urlencoded)   1 MB
 *   multipart            2 MB (a logo, the largest upload) + 1 MB for the other fields
 *   anything else        64 KB (JSON calls; the app reads no other kind of body)
 * A body that declares its length is judged by the declaration, before a byte is read (Node's parser never reads
 * past it). A chunked body, which declares nothing, is held in memory up to its limit and let through whole,
 * or refused as soon as it passes the limit, its rest thrown away as it arrives.
 */
const MB = 1024 * 1024

export const BODY_LIMITS = { form: MB, multipart: LOGO_MAX_BYTES + MB, other: 64 * 1024 } as const

/** Past this much of a refused body the connection is closed instead of read to its end (as server.ts does). */
const DISCARD_LIMIT = 64 * MB

export function bodyLimitFor(contentType: string | undefined): { limit: number; refusal: Refusal } {
  const type = contentType?.split(';')[0]?.trim().toLowerCase()
  const title = 'Too much to send'
  if (type === 'multipart/form-data') {
    return {
      limit: BODY_LIMITS.multipart,
      refusal: {
        status: 413,
        title,
        message: `${LOGO_MESSAGES.tooLarge}. Nothing was saved: go back and choose a smaller image.`,
      },
    }
  }
  if (type === 'application/x-www-form-urlencoded') {
    return {
      limit: BODY_LIMITS.form,
      refusal: {
        status: 413,
        title,
        message: 'The form is larger than 1 MB, so nothing was saved. Go back and send less text.',
      },
    }
  }
  return {
    limit: BODY_LIMITS.other,
    refusal: { status: 413, title, message: 'The request body is too large', detail: 'At most 64 KB is accepted.' },
  }
}

/** How a body arrives: no body, a declared length, or chunks of unknown total. */
export function declaredLength(req: IncomingMessage): number | 'chunked' | null {
  const length = req.headers['content-length']
  if (length !== undefined) return Number(length)
  return req.headers['transfer-encoding'] === undefined ? null : 'chunked'
}

/**
 * Holds a chunked body until it ends (then `onWhole`, the body intact in the request's stream) or passes `limit`
 * (then `onTooLarge`, and the rest is dropped as it arrives). Node's HTTP parser hands each piece of a body to
 * `req.push()`; taking those pieces here, before they reach the stream, is what lets nothing downstream read a
 * body that has not been measured.
 */
export function holdChunkedBody(
  req: IncomingMessage,
  limit: number,
  { onWhole, onTooLarge }: { onWhole: () => void; onTooLarge: () => void },
) {
  // What arrived before this ran is already in the stream: it counts, and stays in front of what is held.
  let size = req.readableLength
  if (req.complete) return size > limit ? onTooLarge() : onWhole()
  const held: Buffer[] = []
  let refused = false
  const push = req.push
  req.push = function holdPiece(chunk: Buffer | null, encoding?: BufferEncoding): boolean {
    if (chunk === null) {
      req.push = push
      if (!refused) for (const piece of held.splice(0)) push.call(req, piece)
      const result = push.call(req, null)
      // Not from inside the parser's callback: the app starts on the next turn.
      if (!refused) process.nextTick(onWhole)
      return result
    }
    size += chunk.length
    if (refused) {
      if (size > DISCARD_LIMIT) req.socket.destroy()
      return true
    }
    if (size > limit) {
      refused = true
      held.length = 0
      onTooLarge()
      return true
    }
    held.push(typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk)
    return true
  }
}
