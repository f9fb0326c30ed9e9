/**
 * A thread of the push encryption pool (push-encrypt-pool.server.ts): web-push's generateRequestDetails (a fresh
 * ECDH key pair, the shared secret, HKDF and AES-GCM per device, RFC 8291) for a batch of deliveries at a time.
 * Plain JavaScript on purpose: the thread is started by Node itself, from the Vite server build and from the
 * sources under vitest alike, where no TypeScript loader is registered.
 *
 * In: { id, requests } with requests the JSON of [{ endpoint, p256dh, auth, payload, options }]. Out: { id, threadId,
 * results } with results the JSON of [{ headers, body (base64) } | { error }], in the same order. One string each
 * way: copying a string between threads costs far less than cloning dozens of small objects.
 */
import { parentPort, threadId } from 'node:worker_threads'
import webpush from 'web-push'

parentPort.on('message', ({ id, requests }) => {
  const results = JSON.parse(requests).map(({ endpoint, p256dh, auth, payload, options }) => {
    try {
      const details = webpush.generateRequestDetails({ endpoint, keys: { p256dh, auth } }, payload, options)
      return { headers: details.headers, body: details.body.toString('base64') }
    } catch (error) {
      // A key the browser never made (wrong length…): the sender treats it as it did on the main thread.
      return { error: error instanceof Error ? error.message : String(error) }
    }
  })
  parentPort.postMessage({ id, threadId, results: JSON.stringify(results) })
})
