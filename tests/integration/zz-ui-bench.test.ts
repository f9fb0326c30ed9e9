import crypto from 'node:crypto'
import { expect, test } from 'vitest'
import { signedInOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'
import { useTestServer } from '#tests/support/test-server.ts'

const server = useTestServer()

test('history page with 100,000 notifications on one card', { timeout: 600_000 }, async () => {
  const owner = await signedInOwner(server)
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name) values (:userId, :slug, 'active', 'C', 'B') returning id`,
    { userId: owner.id, slug: `b-${crypto.randomBytes(5).toString('hex')}` },
  )
  const [pass] = await sql<{ id: string }>(`insert into passes (card_id, short_code) values (:c, 'BENCHAAA') returning id`, { c: card!.id })
  const t0 = Date.now()
  await sql(
    `insert into notifications (card_id, user_id, pass_id, kind, title, body, status, counts_toward_quota, queued_at, created_at)
     select :c, :u, :p, (array['stamp','stamp','stamp','reward','welcome','one_to_go','we_miss_you'])[1 + g % 7], 't', 'b', 'done', false,
       now() - (g * interval '50 seconds'), now() - (g * interval '50 seconds')
     from generate_series(1, 100000) g`,
    { c: card!.id, u: owner.id, p: pass!.id },
  )
  await sql(`insert into notifications (card_id, user_id, title, body, status, queued_at, created_at)
     select :c, :u, 'm', 'b', 'done', now() - g * interval '1 day', now() - g * interval '1 day' from generate_series(1, 100) g`, { c: card!.id, u: owner.id })
  await sql(`insert into deliveries (notification_id, status, attempts) select id, 'sent', 1 from notifications where card_id = :c`, { c: card!.id })
  if (process.env.BENCH_INDEX) { await sql(`create index deliveries_notification_status_idx on deliveries (notification_id, status)`); await sql('vacuum analyze deliveries') }
  await sql(`analyze`)
  console.info('seeded in', Date.now() - t0, 'ms')
  const times: number[] = []
  for (let i = 0; i < 6; i++) {
    const start = performance.now()
    const response = await server.fetch(`/account/${card!.id}/push_notification/history`, { headers: { Cookie: owner.cookie } })
    expect(response.status).toBe(200)
    await response.text()
    times.push(Math.round(performance.now() - start))
  }
  console.info('history page ms', times.join(', '))
  const { listAutomaticHistory } = await import('#models/automatic-history.server.ts')
  const { listCardNotifications } = await import('#models/notification.server.ts')
  const { localDay } = await import('#app/utils/local-time.ts')
  const { getSequelize } = await import('#app/server/db.server.ts')
  let captured = ''
  const options = (getSequelize() as unknown as { options: { logging: unknown } }).options
  const saved = options.logging
  options.logging = (text: string) => { captured = text.replace(/^Executing \(default\): /, '') }
  await listAutomaticHistory({ cardId: card!.id, userId: owner.id }, { timeZone: 'UTC', lastDay: localDay(new Date(), 'UTC') })
  options.logging = saved
  const plan = await sql<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${captured}`)
  console.info(plan.map((row) => Object.values(row)[0]).join('\n'))
  for (let i = 0; i < 3; i++) {
    let start = performance.now()
    await listAutomaticHistory({ cardId: card!.id, userId: owner.id }, { timeZone: 'UTC', lastDay: localDay(new Date(), 'UTC') })
    const a = Math.round(performance.now() - start)
    start = performance.now()
    await listCardNotifications({ cardId: card!.id, userId: owner.id }, { page: 1 })
    console.info('automatic', a, 'broadcasts', Math.round(performance.now() - start))
  }
})
