import crypto from 'node:crypto'
import { describe, expect, test } from 'vitest'
import { addDays, localDay, startOfLocalDay } from '#app/utils/local-time.ts'
import { createOwner, signedInOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'
import { pageText } from '#tests/support/page-text.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/**
 * The history page (issue 19): the owner's broadcasts listed (sent, and scheduled ones cancelled or not sent, never
 * drafts or those still waiting), and the automatic messages counted per kind and per local day of the business,
 * per channel, with those skipped over a cap or after the plan ended. Rows are made directly, as the senders would.
 */
const server = useTestServer()
const ZONE = 'Pacific/Auckland'
const MINUTE = 60_000

const history = (cardId: string, query = '') => `/account/${cardId}/push_notification/history${query}`

async function createCard(userId: string) {
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name) values (:userId, :slug, 'active', 'Coffee card', 'Corner Coffee') returning id`,
    { userId, slug: `hist-${crypto.randomBytes(5).toString('hex')}` },
  )
  return card!.id
}

async function createPass(cardId: string) {
  const shortCode = Array.from(crypto.randomBytes(8), (byte) => 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'[byte % 32]).join('')
  const [pass] = await sql<{ id: string }>(
    `insert into passes (card_id, short_code) values (:cardId, :shortCode) returning id`,
    { cardId, shortCode },
  )
  return pass!.id
}

type Seed = {
  kind: string
  status: string
  at: Date
  passId: string | null
  skippedReason?: string
  title?: string
  web?: string[]
  apple?: string[]
  google?: string[]
}

/** One notification as the senders leave it, with its devices' rows on each channel. */
async function seed(cardId: string, userId: string, row: Seed) {
  const went = ['queued', 'sending', 'done', 'failed'].includes(row.status)
  const [notification] = await sql<{ id: string }>(
    `insert into notifications (card_id, user_id, pass_id, kind, title, body, status, counts_toward_quota, queued_at,
       scheduled_for, skipped_reason, created_at)
     values (:cardId, :userId, :passId, :kind, :title, 'Body', :status, :quota, :queuedAt, :scheduledFor,
       :skippedReason, :createdAt) returning id`,
    {
      cardId,
      userId,
      passId: row.passId,
      kind: row.kind,
      title: row.title ?? `A ${row.kind}`,
      status: row.status,
      quota: row.kind === 'message',
      queuedAt: went ? row.at : null,
      scheduledFor: went ? null : row.at,
      skippedReason: row.skippedReason ?? null,
      createdAt: new Date(row.at.getTime() - MINUTE),
    },
  )
  const id = notification!.id
  for (const status of row.web ?? [])
    await sql(`insert into deliveries (notification_id, status, attempts) values (:id, :status, 1)`, { id, status })
  for (const status of row.apple ?? [])
    await sql(
      `insert into apple_pushes (push_token, notification_id, pass_id, status) values ('ab12', :id, :passId, :status)`,
      {
        id,
        passId: row.passId,
        status,
      },
    )
  for (const status of row.google ?? [])
    await sql(
      `insert into google_wallet_updates (kind, card_id, pass_id, notification_id, status) values ('message', :cardId, :passId, :id, :status)`,
      { id, cardId, passId: row.passId, status },
    )
  return id
}

/** A fragment's text, one line a tag, joined with ' | '. */
function textOf(fragment: string) {
  return fragment
    .replace(/<[^>]+>/g, '\n')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' | ')
}

/** The text of the automatic section. */
const automaticText = (page: string) => textOf(page.slice(page.indexOf('id="history-automatic"')))

describe('automatic messages per kind and day', () => {
  test('counted per local day across the zone’s midnight, per kind and channel, with the skipped ones', async () => {
    const owner = await signedInOwner(server)
    await sql(`update users set time_zone = :zone where id = :id`, { zone: ZONE, id: owner.id })
    const cardId = await createCard(owner.id)
    const passId = await createPass(cardId)
    const today = localDay(new Date(), ZONE)
    const yesterday = addDays(today, -1)
    const before = addDays(today, -2)
    // Yesterday's local midnight: in UTC both sides fall on the same date (Auckland is 13 hours ahead in November).
    const midnight = startOfLocalDay(yesterday, ZONE)
    const at = (minutes: number) => new Date(midnight.getTime() + minutes * MINUTE)
    const s = (row: Omit<Seed, 'passId'> & { passId?: string | null }) => seed(cardId, owner.id, { passId, ...row })

    await s({ kind: 'stamp', status: 'done', at: at(1), web: ['sent', 'failed'] })
    await s({ kind: 'stamp', status: 'done', at: at(2), web: ['sent', 'gone'] })
    await s({ kind: 'stamp', status: 'done', at: at(-1), web: ['sent'] })
    await s({ kind: 'welcome', status: 'sending', at: at(3), web: ['pending'], apple: ['sent'], google: ['sent'] })
    await s({ kind: 'welcome', status: 'skipped', skippedReason: 'plan_ended', at: at(4) })
    await s({ kind: 'we_miss_you', status: 'skipped', skippedReason: 'weekly_cap', at: at(5) })
    await s({ kind: 'we_miss_you', status: 'skipped', skippedReason: 'daily_cap', at: at(6) })
    await s({ kind: 'reward', status: 'done', at: at(7), web: ['sent'], apple: ['failed'] })
    // Not counted: one still waiting out quiet hours, a broadcast, a draft.
    await s({ kind: 'reward_waiting', status: 'scheduled', at: at(8) })
    await s({ kind: 'message', status: 'done', at: at(9), passId: null, title: 'Happy hour', web: ['sent'] })
    await s({ kind: 'message', status: 'draft', at: at(10), passId: null, title: 'Unsent draft' })
    // Another owner's card on the same day.
    const stranger = await createOwner()
    const foreignCard = await createCard(stranger.id)
    await seed(foreignCard, stranger.id, {
      kind: 'stamp',
      status: 'done',
      at: at(1),
      passId: await createPass(foreignCard),
      web: ['sent', 'sent', 'sent'],
    })

    const page = await pageText(await server.get(history(cardId), owner.cookie))
    const text = automaticText(page)
    const yesterdayLabel = new Intl.DateTimeFormat('en-GB', {
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      timeZone: 'UTC',
    }).format(new Date(`${yesterday}T12:00:00Z`))
    const beforeLabel = new Intl.DateTimeFormat('en-GB', {
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      timeZone: 'UTC',
    }).format(new Date(`${before}T12:00:00Z`))
    expect(text).toContain(`days in ${ZONE}`)
    const yesterdayPart = text.slice(text.indexOf(yesterdayLabel), text.indexOf(beforeLabel))
    expect(text.indexOf(yesterdayLabel)).toBeGreaterThan(-1)
    expect(text.indexOf(beforeLabel)).toBeGreaterThan(text.indexOf(yesterdayLabel))
    // The page's order: stamp push, reward earned, welcome, we miss you (the kinds with rows).
    expect(yesterdayPart).toBe(
      [
        yesterdayLabel,
        'Stamp push',
        '2 messages · 2 delivered · 2 failed · 0 pending',
        'Reward earned',
        '1 message · 1 delivered · 1 failed · 0 pending',
        'Notifications on: 1 delivered · 0 failed · 0 pending',
        'Apple Wallet: 0 delivered · 1 failed · 0 pending',
        'Welcome',
        '1 message · 2 delivered · 0 failed · 1 pending',
        'Notifications on: 0 delivered · 0 failed · 1 pending',
        'Apple Wallet: 1 delivered · 0 failed · 0 pending',
        'Google Wallet: 1 delivered · 0 failed · 0 pending',
        '1 not sent: plan ended',
        'We miss you',
        '0 messages · 0 delivered · 0 failed · 0 pending',
        '2 not sent: over a holder’s limit',
        '',
      ].join(' | '),
    )
    expect(text.slice(text.indexOf(beforeLabel))).toMatch(
      new RegExp(`^${beforeLabel} \\| Stamp push \\| 1 message · 1 delivered · 0 failed · 0 pending \\|`),
    )
    expect(text).not.toContain('Reward waiting')

    // The broadcasts' list: the sent one, not the draft, no stamp pushes one by one.
    const messages = page.slice(page.indexOf('id="history-messages"'), page.indexOf('id="history-automatic"'))
    expect(messages).toContain('Happy hour')
    expect(messages).not.toContain('Unsent draft')
    expect(messages).not.toContain('A stamp')
    expect(messages).not.toContain('A welcome')
  })

  test('14 days a page; older days one link away; a day that is not one is 400 with the default', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    const passId = await createPass(cardId)
    const old = new Date(Date.now() - 20 * 24 * 60 * MINUTE)
    await seed(cardId, owner.id, { kind: 'one_to_go', status: 'done', at: old, passId, web: ['sent'] })
    const first = await pageText(await server.get(history(cardId), owner.cookie))
    expect(automaticText(first)).toContain('No automatic messages in these days.')
    const older = /href="[^"?]*(\?until=[\d-]+)"[^>]*>Older days</.exec(first)
    expect(older).not.toBeNull()
    const second = await pageText(await server.get(history(cardId, older![1]), owner.cookie))
    expect(automaticText(second)).toContain('One stamp to go | 1 message · 1 delivered · 0 failed · 0 pending')
    expect(second).toContain('>Newer days<')
    expect(second).not.toContain('>Older days<')

    for (const bad of ['yesterday', '2026-02-30', '2999-01-01']) {
      const response = await server.get(history(cardId, `?until=${bad}`), owner.cookie)
      expect(response.status, bad).toBe(400)
      expect(await pageText(response), bad).toContain('is not a past day such as')
    }
    expect((await server.get(history(await createCard((await createOwner()).id)), owner.cookie)).status).toBe(404)
  })
})

describe('broadcasts', () => {
  test('a scheduled one not sent shows why; a cancelled one says so; one still waiting is not listed', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    const due = new Date(Date.now() - 60 * MINUTE)
    const row = { kind: 'message', passId: null, at: due }
    await seed(cardId, owner.id, { ...row, status: 'skipped', skippedReason: 'no_quota', title: 'Too late' })
    await seed(cardId, owner.id, { ...row, status: 'cancelled', title: 'Called off' })
    await seed(cardId, owner.id, {
      ...row,
      status: 'scheduled',
      at: new Date(Date.now() + 60 * MINUTE),
      title: 'Still waiting',
    })
    const page = await pageText(await server.get(history(cardId), owner.cookie))
    const messages = textOf(page.slice(page.indexOf('id="history-messages"'), page.indexOf('id="history-automatic"')))
    expect(messages).toMatch(/Too late \| Not sent \| Body \| Was due [^|]+ · No messages left this month/)
    expect(messages).toMatch(/Called off \| Cancelled \| Body \| Was due /)
    expect(messages).not.toContain('Still waiting')
  })
})
