import { describe, expect, test } from 'vitest'
import { getSequelize } from '#app/server/db.server.ts'
import { isoWithOffset, localDay } from '#app/utils/local-time.ts'
import { signedInOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'
import { csvObjects } from '#tests/support/csv-parse.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/**
 * Issue 18 item 4: /account/{cardId}/export/holders.csv and stamps.csv, parsed back with a strict RFC 4180 reader
 * and compared row by row with what was seeded, in a zone far from UTC (Pacific/Auckland: +13:00 in its summer,
 * +12:00 in its winter); more rows than one page (5,000) so several pages stream, none lost or doubled.
 */
const server = useTestServer()
const ZONE = 'Pacific/Auckland'
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'

/** An owner in Auckland (set before any event: the insights trigger reads the zone), signed in, with a card. */
async function aucklandOwnerWithCard(label: string) {
  const owner = await signedInOwner(server)
  await sql(`update users set time_zone = :zone where id = :id`, { zone: ZONE, id: owner.id })
  const [card] = await sql<{ id: string; slug: string }>(
    `insert into cards (user_id, slug, status, title, business_name, stamps_required)
     values (:userId, :slug, 'active', 'Coffee card', 'Corner Coffee', 5) returning id, slug`,
    { userId: owner.id, slug: `export-${label}-${Math.random().toString(36).slice(2, 8)}` },
  )
  return { owner, card: card! }
}

/** A short code no other test makes: a fixed first letter, then a random tail. */
const shortCode = (first: string) =>
  first + Array.from({ length: 7 }, () => ALPHABET[Math.floor(Math.random() * 32)]).join('')

async function download(pathname: string, cookie: string) {
  const response = await server.get(pathname, cookie)
  expect(response.status, pathname).toBe(200)
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await response.arrayBuffer())
  return { response, ...csvObjects(text) }
}

describe('the CSV exports', () => {
  test('holders.csv and stamps.csv: RFC 4180, a BOM, the header, Auckland offsets, every value as seeded', async () => {
    const { owner, card } = await aucklandOwnerWithCard('small')
    const codes = { summer: shortCode('S'), winter: shortCode('W'), removed: shortCode('R') }
    const [summer, winter, removed] = await sql<{ id: string }>(
      `insert into passes (card_id, short_code, stamps, rewards_redeemed, created_at, last_visit_at) values
         (:card, :summer, 5, 2, '2026-01-10T22:30:00.123456Z', '2026-01-20T01:02:03Z'),
         (:card, :winter, 1, 0, '2026-07-10T22:30:00Z', '2026-07-10T22:30:00Z'),
         (:card, :removed, 0, 0, '2026-07-11T00:00:00Z', '2026-07-11T00:00:00Z')
       returning id`,
      { card: card.id, ...codes },
    ).then((rows) => rows.map((row) => row.id))
    // Reached by web push and Apple Wallet (summer), Google Wallet (winter); a Google object that is gone is not.
    await sql(
      `insert into push_subscriptions (pass_id, endpoint, p256dh, auth)
         values (:summer, 'https://fcm.googleapis.com/fcm/send/export-test', 'p256dh', 'auth');
       insert into apple_devices (id, push_token) values ('export-device-' || :summer, 'abcdef0123');
       insert into apple_registrations (device_id, pass_id) values ('export-device-' || :summer, :summer);
       insert into google_wallet_objects (pass_id, card_id, state) values (:winter, :card, 'active'), (:removed, :card, 'gone')`,
      { summer, winter, removed, card: card.id },
    )
    const event = (pass: string, kind: string, count: number, at: string) =>
      sql(
        `insert into stamp_events (pass_id, card_id, kind, count, created_at) values (:pass, :card, :kind, :count, :at)`,
        { pass, card: card.id, kind, count, at },
      )
    await event(summer!, 'stamp', 3, '2026-01-10T22:31:00Z')
    await event(summer!, 'stamp', 2, '2026-01-11T12:00:00Z')
    await event(summer!, 'undo', 2, '2026-01-11T12:00:30Z')
    await event(removed!, 'stamp', 1, '2026-07-11T00:05:00Z')
    await event(winter!, 'stamp', 1, '2026-07-11T03:00:00Z')
    await event(summer!, 'redeem', 5, '2026-07-12T11:59:59Z')
    await sql(`delete from passes where id = :removed`, { removed })
    // What the summer holder gave (issue 34): a name that looks like a formula, a confirmed e-mail, 29 February.
    await sql(
      `insert into holder_profiles (pass_id, card_id, name, email, email_confirmed_at, phone, birth_day, birth_month)
       values (:summer, :card, '=Zoë, "the" regular', 'zoe@example.com', now(), '+6421234567', 29, 2)`,
      { summer, card: card.id },
    )

    const holders = await download(`/account/${card.id}/export/holders.csv`, owner.cookie)
    const today = localDay(new Date(), ZONE)
    expect(holders.response.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(holders.response.headers.get('content-disposition')).toBe(
      `attachment; filename="${card.slug}-holders-${today}.csv"`,
    )
    expect(holders.response.headers.get('cache-control')).toBe('no-store')
    expect(holders.bom).toBe(true)
    expect(holders.header).toEqual([
      'short_code',
      'joined',
      'last_visit',
      'stamps',
      'stamps_required',
      'rewards_earned',
      'rewards_redeemed',
      'web_push',
      'apple_wallet',
      'google_wallet',
      'name',
      'email',
      'email_confirmed',
      'phone',
      'birthday',
    ])
    expect(holders.rows).toEqual([
      {
        short_code: codes.summer,
        joined: '2026-01-11T11:30:00+13:00',
        last_visit: '2026-01-20T14:02:03+13:00',
        stamps: '5',
        stamps_required: '5',
        // Two redeemed and one waiting.
        rewards_earned: '3',
        rewards_redeemed: '2',
        web_push: 'yes',
        apple_wallet: 'yes',
        google_wallet: 'no',
        // Formula cells are escaped with a leading ' (app/utils/csv.ts): the phone's + too.
        name: `'=Zoë, "the" regular`,
        email: 'zoe@example.com',
        email_confirmed: 'yes',
        phone: "'+6421234567",
        birthday: '02-29',
      },
      {
        short_code: codes.winter,
        joined: '2026-07-11T10:30:00+12:00',
        last_visit: '2026-07-11T10:30:00+12:00',
        stamps: '1',
        stamps_required: '5',
        rewards_earned: '0',
        rewards_redeemed: '0',
        web_push: 'no',
        apple_wallet: 'no',
        google_wallet: 'yes',
        name: '',
        email: '',
        email_confirmed: '',
        phone: '',
        birthday: '',
      },
    ])

    const stamps = await download(`/account/${card.id}/export/stamps.csv`, owner.cookie)
    expect(stamps.response.headers.get('content-disposition')).toBe(
      `attachment; filename="${card.slug}-stamps-${today}.csv"`,
    )
    expect(stamps.bom).toBe(true)
    expect(stamps.header).toEqual(['time', 'short_code', 'action', 'count', 'undone'])
    expect(stamps.rows.map((row) => Object.values(row))).toEqual([
      ['2026-01-11T11:31:00+13:00', codes.summer, 'stamp', '3', 'no'],
      ['2026-01-12T01:00:00+13:00', codes.summer, 'stamp', '2', 'yes'],
      ['2026-01-12T01:00:30+13:00', codes.summer, 'undo', '2', ''],
      // The holder who removed their card: the event stays, without a short code.
      ['2026-07-11T12:05:00+12:00', '', 'stamp', '1', 'no'],
      ['2026-07-11T15:00:00+12:00', codes.winter, 'stamp', '1', 'no'],
      ['2026-07-12T23:59:59+12:00', codes.summer, 'redeem', '5', ''],
    ])

    // The raw bytes: CRLF line ends and the BOM's UTF-8 bytes first.
    const raw = new Uint8Array(
      await (await server.get(`/account/${card.id}/export/stamps.csv`, owner.cookie)).arrayBuffer(),
    )
    expect([...raw.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    expect(new TextDecoder().decode(raw).split('\r\n')).toHaveLength(8)
  })

  test('a card with no holders and no events is the header alone', async () => {
    const { owner, card } = await aucklandOwnerWithCard('empty')
    for (const kind of ['holders', 'stamps']) {
      const { rows, header } = await download(`/account/${card.id}/export/${kind}.csv`, owner.cookie)
      expect(header.length).toBeGreaterThan(0)
      expect(rows).toEqual([])
    }
  })

  test('12,000 events and 10,500 holders stream in pages of 5,000: none lost, doubled or out of order', async () => {
    const { owner, card } = await aucklandOwnerWithCard('bulk')
    const first = ALPHABET[Math.floor(Math.random() * 32)]!
    // Seeded without the triggers (the owner's page version and the insights rows, per row, are most of the seeding
    // time and nothing here reads them). Holders join in threes at the same instant, so a tie on created_at falls
    // across the first page's edge (rows 4,998 to 5,000).
    await getSequelize().transaction(async (transaction) => {
      const seed = (query: string, replacements: Record<string, unknown>) =>
        getSequelize().query(query, { replacements, transaction })
      await seed(`set local session_replication_role = replica`, {})
      await seed(
        `insert into passes (card_id, short_code, stamps, created_at, last_visit_at)
         select :card, :first || (select string_agg(substr(:alphabet, ((i >> (5 * k)) & 31) + 1, 1), '' order by k)
                                  from generate_series(0, 6) k),
                i % 6, timestamptz '2026-03-01T00:00:00Z' + (i / 3) * interval '1 hour',
                timestamptz '2026-03-01T00:00:00Z' + (i / 3) * interval '1 hour'
         from generate_series(0, 10499) i`,
        { card: card.id, first, alphabet: ALPHABET },
      )
      await seed(
        `insert into stamp_events (pass_id, card_id, kind, count, created_at)
         select (select array_agg(id order by id) from (select id from passes where card_id = :card limit 4) p)[1 + i % 4],
                :card, 'stamp', 1 + i % 3, timestamptz '2026-01-01T00:00:00Z' + i * interval '37 minutes'
         from generate_series(0, 11999) i`,
        { card: card.id },
      )
    })

    const expectedHolders = await sql<{ short_code: string; created_at: Date; stamps: number }>(
      `select short_code, created_at, stamps from passes where card_id = :card order by created_at, id`,
      { card: card.id },
    )
    const holders = await download(`/account/${card.id}/export/holders.csv`, owner.cookie)
    expect(holders.rows).toHaveLength(10_500)
    expect(new Set(holders.rows.map((row) => row.short_code)).size).toBe(10_500)
    holders.rows.forEach((row, index) => {
      const expected = expectedHolders[index]!
      expect([row.short_code, row.joined, row.stamps]).toEqual([
        expected.short_code,
        isoWithOffset(expected.created_at, ZONE),
        String(expected.stamps),
      ])
    })

    const expectedEvents = await sql<{ short_code: string; created_at: Date; count: number }>(
      `select p.short_code, e.created_at, e.count from stamp_events e join passes p on p.id = e.pass_id
       where e.card_id = :card order by e.id`,
      { card: card.id },
    )
    const stamps = await download(`/account/${card.id}/export/stamps.csv`, owner.cookie)
    expect(stamps.rows).toHaveLength(12_000)
    stamps.rows.forEach((row, index) => {
      const expected = expectedEvents[index]!
      expect([row.time, row.short_code, row.action, row.count, row.undone]).toEqual([
        isoWithOffset(expected.created_at, ZONE),
        expected.short_code,
        'stamp',
        String(expected.count),
        'no',
      ])
    })
    // The year crosses both of Auckland's clock changes: both offsets appear.
    expect(new Set(stamps.rows.map((row) => row.time!.slice(-6)))).toEqual(new Set(['+13:00', '+12:00']))
  })

  test('another owner’s card and a malformed id are 404; a guest is sent to log in', async () => {
    const { card } = await aucklandOwnerWithCard('scope')
    await sql(`insert into passes (card_id, short_code) values (:card, :code)`, {
      card: card.id,
      code: shortCode('X'),
    })
    const stranger = await signedInOwner(server)
    for (const kind of ['holders', 'stamps']) {
      const foreign = await server.get(`/account/${card.id}/export/${kind}.csv`, stranger.cookie)
      expect(foreign.status).toBe(404)
      expect(await foreign.text()).not.toContain('short_code')
      expect((await server.get(`/account/not-a-card/export/${kind}.csv`, stranger.cookie)).status).toBe(404)
      const guest = await server.get(`/account/${card.id}/export/${kind}.csv`)
      expect(guest.status).toBe(302)
      expect(guest.headers.get('location')).toBe(
        `/login?${new URLSearchParams({ redirectTo: `/account/${card.id}/export/${kind}.csv` })}`,
      )
    }
  })
})
