import {
  MaxPartSizeExceededError,
  unstable_createMemoryUploadHandler,
  unstable_parseMultipartFormData,
} from '@remix-run/node'
import { DISCARD_LIMIT } from './body-limit.server.ts'

/**
 * Reads a multipart form with an upload while it streams in: no part may pass `maxPartBytes` and the whole body
 * may not pass `maxBodyBytes`, so an oversized upload is refused after reading no more than the limit into memory.
 * What follows the limit is read and thrown away (up to `drainBytes`), because a browser that is still sending
 * its body when the answer comes may never show that answer.
 */
export type MultipartRead =
  { status: 'ok'; formData: FormData } | { status: 'too-large'; field: string | null } | { status: 'malformed' }

class BodyTooLargeError extends Error {}

export const isMultipart = (request: Request) =>
  request.headers.get('Content-Type')?.toLowerCase().startsWith('multipart/form-data') ?? false

export async function readLimitedMultipart(
  request: Request,
  {
    maxPartBytes,
    maxBodyBytes,
    drainBytes = DISCARD_LIMIT,
  }: { maxPartBytes: number; maxBodyBytes: number; drainBytes?: number },
): Promise<MultipartRead> {
  if (!request.body) return { status: 'malformed' }
  const source = request.body.getReader()
  const declared = Number(request.headers.get('Content-Length'))
  if (declared > maxBodyBytes) {
    await drain(source, drainBytes)
    return { status: 'too-large', field: null }
  }

  let received = 0
  // The parser's last read, still running when it gives up; the drain waits for it (one read at a time).
  let reading: Promise<unknown> = Promise.resolve()
  const limited = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const read = source.read()
      reading = read
      const { done, value } = await read
      if (done) return controller.close()
      received += value.byteLength
      if (received > maxBodyBytes) return controller.error(new BodyTooLargeError('body too large'))
      controller.enqueue(value)
    },
  })
  const limitedRequest = new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: limited,
    duplex: 'half',
  } as RequestInit)
  try {
    const formData = await unstable_parseMultipartFormData(
      limitedRequest,
      unstable_createMemoryUploadHandler({ maxPartSize: maxPartBytes }),
    )
    return { status: 'ok', formData }
  } catch (error) {
    await reading.catch(() => {})
    await drain(source, drainBytes)
    if (error instanceof MaxPartSizeExceededError) return { status: 'too-large', field: error.field }
    if (error instanceof BodyTooLargeError) return { status: 'too-large', field: null }
    return { status: 'malformed' }
  }
}

/** Reads and discards the rest of the body; past `limit` bytes the connection is given up instead. */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, limit: number) {
  let drained = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      drained += value.byteLength
      if (drained > limit) {
        await reader.cancel()
        return
      }
    }
  } catch {
    // The client went away: nothing left to read.
  }
}
