import { PassThrough } from 'node:stream'
import { createReadableStreamFromReadable } from '@remix-run/node'
import { expect, test } from 'vitest'
import { readLimitedMultipart } from './multipart-upload.server.ts'

const boundary = 'test-boundary'
const head = `--${boundary}\r\nContent-Disposition: form-data; name="intent"\r\n\r\nlogo\r\n--${boundary}\r\nContent-Disposition: form-data; name="logo"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`

function streamedRequest(megabytes: number, { declareLength = false } = {}) {
  let sent = 0
  let pulled = 0
  const chunk = new Uint8Array(1024 * 1024)
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === 0) controller.enqueue(new TextEncoder().encode(head))
      if (sent >= megabytes) {
        controller.enqueue(new TextEncoder().encode(`\r\n--${boundary}--\r\n`))
        return controller.close()
      }
      sent++
      pulled += chunk.byteLength
      controller.enqueue(chunk)
    },
  })
  const headers: Record<string, string> = { 'Content-Type': `multipart/form-data; boundary=${boundary}` }
  if (declareLength) headers['Content-Length'] = String(megabytes * 1024 * 1024 + head.length + 40)
  const request = new Request('http://localhost/upload', {
    method: 'POST',
    headers,
    body,
    duplex: 'half',
  } as RequestInit)
  return { request, pulled: () => pulled }
}

const limits = { maxPartBytes: 2 * 1024 * 1024, maxBodyBytes: 2 * 1024 * 1024 + 64 * 1024, drainBytes: 8 * 1024 * 1024 }

test('names the field whose part passed its limit', async () => {
  const small = { ...limits, maxPartBytes: 512 * 1024 }
  expect(await readLimitedMultipart(streamedRequest(1).request, small)).toEqual({ status: 'too-large', field: 'logo' })
})

test('reads a form within the limits', async () => {
  const { request } = streamedRequest(1)
  const read = await readLimitedMultipart(request, limits)
  expect(read.status).toBe('ok')
  if (read.status !== 'ok') return
  expect(read.formData.get('intent')).toBe('logo')
  expect((read.formData.get('logo') as File).size).toBe(1024 * 1024)
})

test('stops at the part limit, drains a little more, then gives up on a 50 MB body', async () => {
  const { request, pulled } = streamedRequest(50)
  expect(await readLimitedMultipart(request, limits)).toMatchObject({ status: 'too-large' })
  // The 2 MB limit, then at most the drain allowance: never the whole 50 MB.
  expect(pulled()).toBeLessThan(16 * 1024 * 1024) // the limits plus what the streams queue ahead
})

test('refuses a declared length over the limit before parsing', async () => {
  const { request, pulled } = streamedRequest(50, { declareLength: true })
  expect(await readLimitedMultipart(request, limits)).toEqual({ status: 'too-large', field: null })
  expect(pulled()).toBeLessThanOrEqual(limits.drainBytes + 2 * 1024 * 1024)
})

test('drains a moderately large body completely, so a browser still sending it gets the answer', async () => {
  const { request, pulled } = streamedRequest(3)
  expect(await readLimitedMultipart(request, limits)).toMatchObject({ status: 'too-large' })
  expect(pulled()).toBe(3 * 1024 * 1024)
})

test('a broken body is malformed, not an error', async () => {
  const request = new Request('http://localhost/upload', {
    method: 'POST',
    headers: { 'Content-Type': 'multipart/form-data; boundary=xyz' },
    body: '--xyz\r\nContent-Disposition: form-data; name="logo"; filename="a.png"\r\n\r\nno end',
  })
  expect(await readLimitedMultipart(request, limits)).toEqual({ status: 'malformed' })
})

test('drains a Node request stream (as the Express adapter gives it) after the part limit', async () => {
  // The Express adapter pauses the socket when its stream is full: a second reader racing the parser's last
  // read once left the body stalled for good.
  const socket = new PassThrough()
  let written = 0
  void (async () => {
    socket.write(head)
    for (; written < 6 * 16; written++) {
      if (!socket.write(Buffer.alloc(64 * 1024))) await new Promise((resolve) => socket.once('drain', resolve))
    }
    socket.end(`\r\n--${boundary}--\r\n`)
  })()
  const request = new Request('http://localhost/upload', {
    method: 'POST',
    headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
    body: createReadableStreamFromReadable(socket),
    duplex: 'half',
  } as RequestInit)
  const read = await readLimitedMultipart(request, { ...limits, maxBodyBytes: 8 * 1024 * 1024 })
  expect(read).toEqual({ status: 'too-large', field: 'logo' })
  expect(written).toBe(6 * 16)
})
