import crypto from 'node:crypto'
import { createRequire } from 'node:module'
import { threadId as mainThreadId } from 'node:worker_threads'
import { afterEach, describe, expect, test } from 'vitest'
import { createEncryptPool, type EncryptPool, type EncryptRequest } from './push-encrypt-pool.server.ts'

// http_ece comes with web-push and has no types: the one call made here, as the test push service makes it.
const ece = createRequire(import.meta.url)('http_ece') as {
  decrypt(body: Buffer, params: { version: 'aes128gcm'; privateKey: crypto.ECDH; authSecret: string }): Buffer
}

/** A browser's subscription: its own P-256 key pair and auth secret, and a request for it with its own body. */
function device(index: number) {
  const ecdh = crypto.createECDH('prime256v1')
  ecdh.generateKeys()
  const auth = crypto.randomBytes(16).toString('base64url')
  const request: EncryptRequest = {
    endpoint: `https://push.example.com/push/${index}`,
    p256dh: ecdh.getPublicKey('base64url'),
    auth,
    payload: JSON.stringify({ id: `message-${index}`, title: 'Happy hour', body: 'Two coffees for one' }),
    options: { TTL: 86_400, urgency: 'normal', topic: 'message', headers: { Authorization: 'vapid t=x, k=y' } },
  }
  return { ecdh, auth, request }
}

let pool: EncryptPool | undefined
afterEach(async () => {
  await pool?.close()
  pool = undefined
})

describe('createEncryptPool', () => {
  test('every body decrypts with its device key; the batches spread over both threads, off the main thread', async () => {
    pool = createEncryptPool({ threads: 2, batchSize: 4 })
    expect(pool.threads).toBe(2)
    const devices = Array.from({ length: 40 }, (_, index) => device(index))
    const encrypted = await Promise.all(devices.map(({ request }) => pool!.encrypt(request)))
    encrypted.forEach((result, index) => {
      const { ecdh, auth, request } = devices[index]!
      const plain = ece.decrypt(result.body, { version: 'aes128gcm', privateKey: ecdh, authSecret: auth })
      expect(plain.toString('utf8')).toBe(request.payload)
      expect(result.headers).toMatchObject({
        TTL: 86_400,
        Urgency: 'normal',
        Topic: 'message',
        'Content-Encoding': 'aes128gcm',
        Authorization: 'vapid t=x, k=y',
      })
    })
    const threads = new Set(encrypted.map((result) => result.threadId))
    expect(threads.size).toBe(2)
    expect(threads.has(mainThreadId)).toBe(false)
  })

  test('a key no browser makes is refused for that request only', async () => {
    pool = createEncryptPool({ threads: 1 })
    const good = device(1)
    const bad = { ...device(2).request, p256dh: 'too-short' }
    const [refused, accepted] = await Promise.allSettled([pool.encrypt(bad), pool.encrypt(good.request)])
    expect(refused.status).toBe('rejected')
    expect(accepted.status).toBe('fulfilled')
  })

  test('without its thread file the work is done on the main thread, and still decrypts', async () => {
    pool = createEncryptPool({ threads: 2, workerPath: '/nonexistent/push-encrypt-worker.mjs' })
    const { ecdh, auth, request } = device(3)
    const result = await pool.encrypt(request)
    expect(result.threadId).toBe(mainThreadId)
    expect(ece.decrypt(result.body, { version: 'aes128gcm', privateKey: ecdh, authSecret: auth }).toString()).toBe(
      request.payload,
    )
    // Each thread reports its failure when it tries to load the file: soon, not necessarily before that request.
    await expect.poll(() => pool!.threads).toBe(0)
  })
})
