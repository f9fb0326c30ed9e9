import { expect, test } from 'vitest'
import { logIn, sql } from '#tests/support/auth-api.ts'
import { createDraft, createPushAudience, waitUntilDone } from '#tests/support/push-audience.ts'
import { usePushDelivery } from '#tests/support/push-delivery-harness.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/*
 * A message starts in the process that took the Send (issue 19 item 7; docs/decisions/041-push-fan-out-speed.md):
 * the first request reaches the push service within 250 ms of Send, where waiting for the job queue's polls took
 * about 1 s. Here the app and its job queue run in this process, as in the server; each Send is timed from the
 * answer to the POST (the redirect the owner sees) to the push service's record of its first request. The
 * benchmark (`npm run bench:push-fanout`) holds the same 250 ms from the start of the POST, on an idle machine. On
 * this shared 2-core machine other test runs add delays, so each send may take up to FIRST_REQUEST_BOUND_MS and the
 * median must be within the 250 ms; waiting for two polls of 0.5 s would fail both.
 */
const endpoint = usePushDelivery()
const server = useTestServer()

const BUDGET_MS = 250
const FIRST_REQUEST_BOUND_MS = 1_000
const ROUNDS = 5

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** When the push service first heard from any of these endpoints (Date.now() of this process), once it has. */
async function firstArrival(endpoints: string[]) {
  const mine = new Set(endpoints)
  await endpoint.waitFor((requests) => requests.some((request) => mine.has(request.endpoint)), 10_000)
  return Math.min(...endpoint.requests().flatMap((request) => (mine.has(request.endpoint) ? [request.at] : [])))
}

test('a message to 300 holders: its first request reaches the push service within 250 ms of Send', async () => {
  const latencies: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const { owner, cardId, subscriptions } = await createPushAudience(
      endpoint,
      Array.from({ length: 300 }, () => 'ok' as const),
    )
    const cookie = await logIn(server, owner.email)
    const id = await createDraft(owner.id, cardId)
    const response = await server.fetch(`/account/${cardId}/push_notification/confirm/${id}`, {
      method: 'POST',
      headers: { Cookie: cookie },
      body: new URLSearchParams({ intent: 'send' }),
    })
    expect(response.status).toBe(302)
    const answeredAt = Date.now()
    latencies.push((await firstArrival(subscriptions.map((subscription) => subscription.endpoint))) - answeredAt)
    // One Send at a time, each timed on its own.
    await waitUntilDone(id)
  }
  console.info(`first request after Send's answer (ms): ${latencies.join(', ')}`)
  expect(Math.max(...latencies)).toBeLessThanOrEqual(FIRST_REQUEST_BOUND_MS)
  expect(median(latencies)).toBeLessThanOrEqual(BUDGET_MS)
  // The claim is each Send's latency, not the test's length: 1,500 holders made in five rounds took 5–8 s alone and
  // 12–13 s beside other files under load, and once passed the default 30 s in CI's busiest minutes. A message that
  // never finishes still fails, with its status, through waitUntilDone's own 60 s.
}, 120_000)

test("a stamp's push to the holder's one device: within 250 ms of the stamp", async () => {
  const { owner, cardId, passIds, subscriptions } = await createPushAudience(
    endpoint,
    Array.from({ length: ROUNDS }, () => 'ok' as const),
  )
  const cookie = await logIn(server, owner.email)
  const latencies: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    // A pass of its own each time: one stamp push per pass in ten minutes.
    const [pass] = await sql<{ short_code: string }>(`select short_code from passes where id = :id`, {
      id: passIds[round],
    })
    const response = await server.fetch(`/account/${cardId}/scan`, {
      method: 'POST',
      headers: { Cookie: cookie },
      body: new URLSearchParams({ intent: 'stamp', code: pass!.short_code }),
    })
    expect(response.status).toBe(302)
    const answeredAt = Date.now()
    latencies.push((await firstArrival([subscriptions[round]!.endpoint])) - answeredAt)
  }
  console.info(`stamp push after the stamp's answer (ms): ${latencies.join(', ')}`)
  expect(Math.max(...latencies)).toBeLessThanOrEqual(FIRST_REQUEST_BOUND_MS)
  expect(median(latencies)).toBeLessThanOrEqual(BUDGET_MS)
})
