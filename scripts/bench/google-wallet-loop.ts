/**
 * The yardstick of `npm run bench:google-wallet`: a plain loop of the app's own addMessage calls, one after another,
 * with no database and no job queue — the app's Google client (createGoogleWalletClient: the same token grant and
 * fetch) posting the same body the delivery job sends to each object. Run as its own process (like the app's) by the
 * benchmark, so it borrows no CPU from the fake unseen. argv = a JSON file of { issuerId, serviceAccount (the key
 * file's JSON), apiOrigin, objectIds, message: { id, title, body } }. Prints one JSON line: { sent, failed, ms }.
 */
import fs from 'node:fs'
import { readServiceAccount } from '#app/server/google-wallet-config.server.ts'
import { createGoogleWalletClient, GOOGLE_TIMEOUT_MS } from '#app/services/wallet/google-wallet-client.server.ts'
import { addMessageRequest } from '#app/services/wallet/google-wallet-objects.server.ts'

type LoopInput = {
  issuerId: string
  serviceAccount: string
  apiOrigin: string
  objectIds: string[]
  message: { id: string; title: string; body: string }
}

const input = JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8')) as LoopInput
const client = createGoogleWalletClient(
  { issuerId: input.issuerId, serviceAccount: readServiceAccount(input.serviceAccount), apiOrigin: input.apiOrigin },
  { timeoutMs: GOOGLE_TIMEOUT_MS },
)
// The app's holders are notified within Google's limit: each gets the notifying message, as here.
const body = addMessageRequest(input.message, true)
const path = (objectId: string) => `loyaltyObject/${encodeURIComponent(objectId)}`

// Not timed: the token grant and the first connection (the app's client had both before the message too).
const warm = await client.request('GET', path(input.objectIds[0]!), undefined)
if (warm.status !== 200) throw new Error(`the warm-up call answered ${warm.status}`)

let sent = 0
let failed = 0
const started = performance.now()
for (const objectId of input.objectIds) {
  const answer = await client.request('POST', `${path(objectId)}/addMessage`, body)
  if (answer.status === 200) sent++
  else failed++
}
console.log(JSON.stringify({ sent, failed, ms: Math.round(performance.now() - started) }))
