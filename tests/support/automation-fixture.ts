import crypto from 'node:crypto'
import { redeemReward, stampPass, undoLastStamp } from '#app/services/cards/stamping.server.ts'
import { type AutomationKind } from '#app/utils/automations.ts'
import { createOwner } from './account-owner.ts'
import { sql } from './auth-api.ts'
import { randomShortCode } from './stamp-history.ts'

/**
 * What the automatic-message tests need, written in SQL as the app (or the automations page) writes it: an owner in a
 * time zone with a card, its automations, holders with devices on the channels asked for, and the holder's rows.
 */

export type Channel = 'web' | 'apple' | 'google'

export async function automationCard({ timeZone = 'UTC', stampsRequired = 5 } = {}) {
  const owner = await createOwner()
  await sql('update users set time_zone = :timeZone where id = :userId', { userId: owner.id, timeZone })
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name, reward, stamps_required)
     values (:userId, :slug, 'active', 'Coffee card', 'Corner Coffee', 'A free coffee', :stampsRequired)
     returning id`,
    { userId: owner.id, slug: `auto-${crypto.randomBytes(5).toString('hex')}`, stampsRequired },
  )
  return { owner, ownerId: owner.id, cardId: card!.id }
}

/** The card's setting for a kind, as the automations page saves it. */
export async function setAutomation(
  cardId: string,
  kind: AutomationKind,
  {
    enabled = true,
    title = `${kind} title`,
    body = `${kind} body`,
    days = kind === 'reward_waiting' || kind === 'we_miss_you' ? 7 : null,
    enabledAt = '2000-01-01T00:00:00Z',
  }: { enabled?: boolean; title?: string; body?: string; days?: number | null; enabledAt?: string | Date } = {},
) {
  await sql(
    `insert into card_automations (card_id, kind, enabled, title, body, days, enabled_at)
     values (:cardId, :kind, :enabled, :title, :body, :days, :enabledAt)
     on conflict (card_id, kind) do update set enabled = excluded.enabled, title = excluded.title,
       body = excluded.body, days = excluded.days, enabled_at = excluded.enabled_at`,
    { cardId, kind, enabled, title, body, days, enabledAt },
  )
}

/** Gives the pass a device on a channel (no real endpoint: these tests run no delivery job unless they say so). */
export async function addDevice(passId: string, channel: Channel) {
  const tag = crypto.randomBytes(6).toString('hex')
  if (channel === 'web') {
    await sql(
      `insert into push_subscriptions (pass_id, endpoint, p256dh, auth) values (:passId, :endpoint, 'p256dh', 'auth')`,
      { passId, endpoint: `https://fcm.googleapis.com/fcm/send/${tag}` },
    )
  } else if (channel === 'apple') {
    await sql(`insert into apple_devices (id, push_token) values (:tag, 'abcdef')`, { tag })
    await sql(`insert into apple_registrations (device_id, pass_id) values (:tag, :passId)`, { tag, passId })
  } else {
    await sql(
      `insert into google_wallet_objects (pass_id, card_id) select id, card_id from passes where id = :passId`,
      { passId },
    )
  }
}

/** A holder: joined (and last visited) at `joinedAt`, with `stamps`, and devices on `channels`. */
export async function addPass(
  cardId: string,
  {
    joinedAt = new Date().toISOString(),
    lastVisitAt = joinedAt,
    stamps = 0,
    channels = ['web'] as Channel[],
  }: { joinedAt?: string; lastVisitAt?: string; stamps?: number; channels?: Channel[] } = {},
) {
  const [pass] = await sql<{ id: string; short_code: string }>(
    `insert into passes (card_id, short_code, stamps, created_at, last_visit_at)
     values (:cardId, :code, :stamps, :joinedAt, :lastVisitAt) returning id, short_code`,
    { cardId, code: randomShortCode(), stamps, joinedAt, lastVisitAt },
  )
  for (const channel of channels) await addDevice(pass!.id, channel)
  return { id: pass!.id, shortCode: pass!.short_code }
}

export type MessageRow = {
  id: string
  kind: string
  status: string
  title: string
  body: string
  occasion: string | null
  skipped_reason: string | null
  scheduled_for: Date | null
  queued_at: Date | null
  counts_toward_quota: boolean
}

/** The pass's messages, oldest first. */
export const messagesOf = (passId: string) =>
  sql<MessageRow>(
    `select id, kind, status, title, body, occasion, skipped_reason, scheduled_for, queued_at, counts_toward_quota
     from notifications where pass_id = :passId order by created_at, id`,
    { passId },
  )

/** Kind and status of each of the pass's messages, oldest first: 'stamp:queued'. */
export const summaryOf = async (passId: string) =>
  (await messagesOf(passId)).map(
    (row) => `${row.kind}:${row.status}${row.skipped_reason ? `:${row.skipped_reason}` : ''}`,
  )

/** A message already sent to the pass at `queuedAt` (for the caps). */
export async function sentMessage(cardId: string, passId: string, kind: string, queuedAt: string) {
  await sql(
    `insert into notifications (card_id, user_id, pass_id, kind, title, body, status, counts_toward_quota, queued_at,
                                scheduled_for, occasion)
     select c.id, c.user_id, :passId, :kind, 'Earlier', 'An earlier message', 'done', false, :queuedAt, :queuedAt,
            :occasion
     from cards c where c.id = :cardId`,
    { cardId, passId, kind, queuedAt, occasion: `test:${crypto.randomBytes(4).toString('hex')}` },
  )
}

/** The owner's stamping operations on one pass, each expected to succeed. */
export function stamper(ownerId: string, cardId: string, pass: { id: string; shortCode: string }) {
  const ok = (result: { ok: boolean }) => {
    if (!result.ok) throw new Error(`refused: ${JSON.stringify(result)}`)
  }
  return {
    stamp: async (count = 1) => ok(await stampPass({ ownerId, cardId, code: pass.shortCode, count })),
    undo: async () => ok(await undoLastStamp({ ownerId, cardId, passId: pass.id })),
    redeem: async () => ok(await redeemReward({ ownerId, cardId, passId: pass.id })),
  }
}
