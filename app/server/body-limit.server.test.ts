import { AsyncLocalStorage } from 'node:async_hooks'
import { IncomingMessage } from 'node:http'
import { Socket } from 'node:net'
import { expect, test } from 'vitest'
import { allChecks, holdBody, sizeCheck, type BodyCheck } from './body-limit.server.ts'
import { type Refusal } from './request-refusal.server.ts'

const TOO_LARGE: Refusal = { status: 413, title: 'Too much', message: 'too large' }
const SAW_X: Refusal = { status: 400, title: 'No', message: 'an x' }

/** Refuses a body with an `x` in it, as it arrives. */
const noX: BodyCheck = { write: (chunk) => (chunk.includes('x') ? SAW_X : null), end: () => null }

/** A request whose body the HTTP parser hands over piece by piece, as Node's does, through `push`. */
function request() {
  return new IncomingMessage(new Socket())
}

async function read(req: IncomingMessage) {
  let text = ''
  for await (const chunk of req) text += String(chunk)
  return text
}

function judge(req: IncomingMessage, check: BodyCheck) {
  return new Promise<{ whole: true } | { refusal: Refusal }>((resolve) =>
    holdBody(req, check, { onWhole: () => resolve({ whole: true }), onRefused: (refusal) => resolve({ refusal }) }),
  )
}

test('a body is held until it ends, judged, then let through whole', async () => {
  const req = request()
  const judged = judge(req, allChecks(sizeCheck(10, TOO_LARGE), noX))
  req.push(Buffer.from('abc'))
  req.push(Buffer.from('def'))
  expect(req.readableLength, 'nothing reaches the stream while the body is judged').toBe(0)
  req.complete = true
  req.push(null)
  expect(await judged).toEqual({ whole: true })
  expect(await read(req)).toBe('abcdef')
})

test('a refused body is dropped; what follows goes to the stream for the discard, nothing of it kept before', async () => {
  const req = request()
  const judged = judge(req, allChecks(sizeCheck(10, TOO_LARGE), noX))
  req.push(Buffer.from('abc'))
  req.push(Buffer.from('x'))
  expect(await judged).toEqual({ refusal: SAW_X })
  req.push(Buffer.from('rest'))
  req.push(null)
  expect(await read(req)).toBe('rest')
})

test('the size limit refuses as soon as it is passed', async () => {
  const req = request()
  const judged = judge(req, sizeCheck(4, TOO_LARGE))
  req.push(Buffer.from('abcd'))
  req.push(Buffer.from('e'))
  expect(await judged).toEqual({ refusal: TOO_LARGE })
})

test('what arrived before the hold is judged too, and stays in front', async () => {
  const refused = request()
  refused.push(Buffer.from('x'))
  expect(await judge(refused, noX)).toEqual({ refusal: SAW_X })

  const held = request()
  held.push(Buffer.from('ab'))
  const judged = judge(held, noX)
  held.push(Buffer.from('cd'))
  held.complete = true
  held.push(null)
  expect(await judged).toEqual({ whole: true })
  expect(await read(held)).toBe('abcd')
})

test('the app goes on in the request’s async context, not the parser’s that ends the body', async () => {
  const storage = new AsyncLocalStorage<string>()
  const req = request()
  const seen = storage.run(
    'the request',
    () =>
      new Promise<string | undefined>((resolve) =>
        holdBody(req, noX, { onWhole: () => resolve(storage.getStore()), onRefused: () => resolve('refused') }),
      ),
  )
  // The parser's pieces arrive outside that context, as they do from the socket.
  storage.run('the parser', () => {
    req.push(Buffer.from('abc'))
    req.complete = true
    req.push(null)
  })
  expect(await seen).toBe('the request')
})
