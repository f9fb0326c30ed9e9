import { AsyncResource } from 'node:async_hooks'
import { type IncomingMessage } from 'node:http'
import { LOGO_MAX_BYTES, LOGO_MESSAGES } from '#app/utils/logo-image.ts'
import { type Refusal } from './request-refusal.server.ts'

/**
 * Request bodies are limited before anything reads them (docs/product/hardening.md, "Body limits"): a 200 MB form
 * posted to /login was read whole into memory (2.6 GB) by `request.formData()`.
 *   forms (urlencoded)   1 MB
 *   multipart            2 MB (a logo, the largest upload) + 1 MB for the other fields
 *   anything else        64 KB (JSON calls; the app reads no other kind of body)
 * A body that declares its length is judged by the declaration, before a byte is read (Node's parser never reads
 * past it). A chunked body, which declares nothing, and every form (whose entries are counted as they arrive,
 * form-entries.server.ts) are held in memory up to the limit and let through whole, or refused as soon as they
 * pass it, their rest thrown away after the answer.
 */
const MB = 1024 * 1024

export const BODY_LIMITS = { form: MB, multipart: LOGO_MAX_BYTES + MB, other: 64 * 1024 } as const

/**
 * The most of a body's unread rest thrown away after its answer (a refusal, or an action that ignores the body),
 * so that a client still sending reads the answer (docs/product/hardening.md, "Body limits"); past it the connection is
 * closed. A phone photo sent as a logo (up to ~12 MB) still gets its 413.
 */
export const DISCARD_LIMIT = 16 * MB

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

/** A judge of a body fed as it arrives: a refusal stops it (the answer goes at once, the rest is thrown away). */
export type BodyCheck = { write: (chunk: Buffer) => Refusal | null; end: () => Refusal | null }

/** Refuses a body once it passes `limit` bytes. */
export function sizeCheck(limit: number, refusal: Refusal): BodyCheck {
  let size = 0
  return { write: (chunk) => ((size += chunk.length) > limit ? refusal : null), end: () => null }
}

/** The checks in order: the first refusal wins. */
export const allChecks = (...checks: BodyCheck[]): BodyCheck => ({
  write: (chunk) => {
    for (const check of checks) {
      const refusal = check.write(chunk)
      if (refusal) return refusal
    }
    return null
  },
  end: () => {
    for (const check of checks) {
      const refusal = check.end()
      if (refusal) return refusal
    }
    return null
  },
})

/**
 * Holds a body until it ends (then `onWhole`, the body intact in the request's stream) or `check` refuses it (then
 * `onRefused`; the rest goes to the stream unread, for the discard after the answer, unread-body.server.ts).
 * Node's HTTP parser hands each piece of a body to `req.push()`; taking those pieces here, before they reach the
 * stream, is what lets nothing downstream read a body that has not been judged.
 */
export function holdBody(
  req: IncomingMessage,
  check: BodyCheck,
  { onWhole, onRefused }: { onWhole: () => void; onRefused: (refusal: Refusal) => void },
) {
  // The parser calls `push` in its own async context, not the request's: the app goes on in the request's (its
  // figures, its log and monitoring scope), or a POST's statements would count for no request.
  onWhole = AsyncResource.bind(onWhole)
  onRefused = AsyncResource.bind(onRefused)
  const held: Buffer[] = []
  // What arrived before this ran is already in the stream (the middleware before it is synchronous, so nothing
  // should have): it is judged too, and stays in front of what is held.
  for (const piece of bufferedPieces(req)) {
    const refusal = check.write(piece)
    if (refusal) return onRefused(refusal)
  }
  if (req.complete) {
    const refusal = check.end()
    return refusal ? onRefused(refusal) : onWhole()
  }
  const push = req.push
  req.push = function holdPiece(chunk: Buffer | null, encoding?: BufferEncoding): boolean {
    if (chunk === null) {
      req.push = push
      const refusal = check.end()
      if (!refusal) for (const piece of held.splice(0)) push.call(req, piece)
      const result = push.call(req, null)
      // Not from inside the parser's callback: the app starts on the next turn.
      process.nextTick(() => (refusal ? onRefused(refusal) : onWhole()))
      return result
    }
    const piece = typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk
    const refusal = check.write(piece)
    if (refusal) {
      // The held pieces and this one are dropped; the rest of the body flows to the stream, unread until the answer.
      req.push = push
      held.length = 0
      onRefused(refusal)
      return true
    }
    held.push(piece)
    return true
  }
}

/** The pieces already in the request's stream, unread. */
function bufferedPieces(req: IncomingMessage): Buffer[] {
  if (req.readableLength === 0) return []
  // `readableBuffer` is the stream's list of pieces (iterable); reading them from it leaves them in place.
  const buffered = (req as unknown as { readableBuffer?: Iterable<Buffer> }).readableBuffer
  return buffered ? [...buffered] : []
}
