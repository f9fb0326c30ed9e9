import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { usingServer } from '#tests/setup/test-database.ts'
import { sql } from '#tests/support/auth-api.ts'
import { killChildren, runTs, type Child } from '#tests/support/child-process.ts'
import { freePort } from '#tests/support/free-port.ts'
import { createDraft, createPushAudience, waitUntilDone } from '#tests/support/push-audience.ts'
import { startPushEndpoint, type PushEndpoint } from '#tests/support/push-endpoint.ts'

/*
 * Two app processes on one PostgreSQL database, each with its timer for the next scheduled broadcast (issue 19: "a
 * schedule fires once with two processes"). Several messages fall due at the same moment; both processes' timers fire
 * then, and each message is released once: one quota each, one push per device each, on time. The embedded database
 * belongs to one process, so this runs in the PostgreSQL-server run only.
 */
let push: PushEndpoint
let children: Child[] = []

async function waitForHealth(base: string, child: Child) {
  const deadline = Date.now() + 90_000
  while (Date.now() < deadline) {
    const status = await fetch(`${base}/healthz`).then(
      (response) => response.status,
      () => 0,
    )
    if (status === 200) return
    if (child.process.exitCode !== null) break
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`the app did not start: ${child.stderr().slice(-2000)}`)
}

beforeAll(async () => {
  if (!usingServer()) return
  push = await startPushEndpoint()
  const ports = [await freePort(), await freePort()]
  children = ports.map((port) =>
    runTs('server.ts', {
      env: {
        PORT: String(port),
        APP_URL: `http://127.0.0.1:${ports[0]}`,
        DATABASE_URL: process.env.DATABASE_URL!,
        SESSION_SECRET: 'scheduled-instances-secret-0123456789abcdef',
        PUSH_ALLOWED_HOSTS: push.host,
        LOG_LEVEL: 'warn',
      },
    }),
  )
  await Promise.all(children.map((child, index) => waitForHealth(`http://127.0.0.1:${ports[index]}`, child)))
}, 180_000)

afterAll(async () => {
  await killChildren()
  await push?.close()
})

describe.runIf(usingServer())('scheduled broadcasts with two app processes', () => {
  test('messages due at one moment go once each, on time', { timeout: 180_000 }, async () => {
    const { owner, cardId, subscriptions } = await createPushAudience(push, ['ok', 'ok'])
    const ids = [
      await createDraft(owner.id, cardId, { title: 'One', body: 'First' }),
      await createDraft(owner.id, cardId, { title: 'Two', body: 'Second' }),
      await createDraft(owner.id, cardId, { title: 'Three', body: 'Third' }),
    ]
    // Stored as another process would store them: each process's timer sees them at its next minute's look.
    const due = new Date(Date.now() + 65_000)
    await sql(`update notifications set status = 'scheduled', scheduled_for = :due where id in (:ids)`, { due, ids })
    for (const id of ids) await waitUntilDone(id, 120_000)

    const rows = await sql<{ id: string; queued_at: Date; quota_source: string }>(
      `select id, queued_at, quota_source from notifications where id in (:ids)`,
      { ids },
    )
    for (const row of rows) {
      const late = new Date(row.queued_at).getTime() - due.getTime()
      expect(late, row.id).toBeGreaterThanOrEqual(0)
      expect(late, row.id).toBeLessThan(1_000)
      expect(row.quota_source).toBe('monthly')
    }
    const [quota] = await sql<{ count: number }>(
      `select count(*)::int as count from notifications where user_id = :id and counts_toward_quota
         and queued_at is not null`,
      { id: owner.id },
    )
    expect(quota!.count).toBe(3)
    // Each device got each message once.
    const counts = push.deliveriesBySubscription()
    for (const subscription of subscriptions) expect(counts.get(subscription.endpoint)).toBe(3)
    const payloads = push.received().map((request) => JSON.parse(request.payload!) as { id: string })
    expect(new Set(payloads.map((payload) => payload.id))).toEqual(new Set(ids))
    expect(await sql(`select count(*)::int as count from deliveries where notification_id in (:ids)`, { ids })).toEqual(
      [{ count: 6 }],
    )
  })
})
