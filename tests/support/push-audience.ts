import crypto from 'node:crypto'
import { createOwner } from './account-owner.ts'
import { sql } from './auth-api.ts'
import { type Behaviour, type PushEndpoint, type PushSubscriptionJSON } from './push-endpoint.ts'

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
const shortCode = () => Array.from(crypto.randomBytes(8), (byte) => ALPHABET[byte % 32]).join('')

/**
 * An owner with one card whose holders each have one device subscribed at the test push endpoint, one per
 * behaviour given (in that order); made in SQL, in bulk (a thousand holders take a moment, not a thousand requests).
 */
export async function createPushAudience(endpoint: Pick<PushEndpoint, 'createSubscription'>, behaviours: Behaviour[]) {
  const owner = await createOwner()
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name, stamps_required, reward)
     values (:userId, :slug, 'active', 'Coffee card', 'Corner Coffee', 8, 'A free coffee') returning id`,
    { userId: owner.id, slug: `push-${crypto.randomBytes(6).toString('hex')}` },
  )
  const codes = [...new Set(Array.from({ length: behaviours.length * 2 }, shortCode))].slice(0, behaviours.length)
  const passes = await sql<{ id: string }>(
    `insert into passes (card_id, short_code) select :cardId, code from unnest(array[:codes]::text[]) with ordinality as c(code, n) order by n returning id`,
    { cardId: card!.id, codes },
  )
  const subscriptions: PushSubscriptionJSON[] = behaviours.map((behaviour) => endpoint.createSubscription(behaviour))
  await sql(
    `insert into push_subscriptions (pass_id, endpoint, p256dh, auth)
     select * from unnest(array[:passIds]::uuid[], array[:endpoints]::text[], array[:p256dh]::text[], array[:auth]::text[])`,
    {
      passIds: passes.map((pass) => pass.id),
      endpoints: subscriptions.map((subscription) => subscription.endpoint),
      p256dh: subscriptions.map((subscription) => subscription.keys.p256dh),
      auth: subscriptions.map((subscription) => subscription.keys.auth),
    },
  )
  return { owner, cardId: card!.id, passIds: passes.map((pass) => pass.id), subscriptions }
}

/** A draft message on the card, as the composer saves it. */
export async function createDraft(
  ownerId: string,
  cardId: string,
  { title = 'Happy hour', body = 'Two coffees for one until 6 pm' } = {},
) {
  const [row] = await sql<{ id: string }>(
    `insert into notifications (card_id, user_id, title, body) values (:cardId, :ownerId, :title, :body) returning id`,
    { cardId, ownerId, title, body },
  )
  return row!.id
}

/** Waits until the message is done (every delivery settled), or fails after `timeoutMs`. */
export async function waitUntilDone(notificationId: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const [row] = await sql<{ status: string }>(`select status from notifications where id = :notificationId`, {
      notificationId,
    })
    if (row?.status === 'done') return
    if (Date.now() > deadline) throw new Error(`message ${notificationId} still ${row?.status} after ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}
