import { selectRows } from './transaction.server.ts'

/*
 * The CSV exports' pages (docs/product/insights-and-exports.md, "Exports"): one owner-scoped query a page,
 * keyset-paged, each on its own (no transaction held across pages: on the embedded database a transaction is served
 * alone and would stop the app for the length of a download). Another owner's card answers no rows. Times come as whole
 * epoch seconds with the business's offset at that instant, computed here, so the export formats them without Intl per
 * row.
 */

/** The most rows one page reads. */
export const EXPORT_PAGE_SIZE = 5_000

type Owned = { cardId: string; userId: string }

/** The instant's offset in the owner's zone, in seconds: local wall time minus UTC wall time. */
const offsetSeconds = (column: string) =>
  `extract(epoch from (${column} at time zone u.time_zone) - (${column} at time zone 'UTC'))::int`
const epochSeconds = (column: string) => `floor(extract(epoch from ${column}))::float8`

export type HolderExportRow = {
  id: string
  /** created_at as PostgreSQL writes it (microseconds kept): the keyset's cursor, exact on the way back. */
  cursor_at: string
  short_code: string
  joined_s: number
  joined_offset_s: number
  last_visit_s: number
  last_visit_offset_s: number
  stamps: number
  stamps_required: number
  rewards_redeemed: number
  web_push: boolean
  apple_wallet: boolean
  google_wallet: boolean
  /** What the holder gave (issue 34), null where nothing. */
  name: string | null
  email: string | null
  email_confirmed: boolean
  phone: string | null
  birth_day: number | null
  birth_month: number | null
}

export type HolderCursor = { createdAt: string; id: string }

/** One page of a card's holders in the order they joined (created_at, id), after `after`. */
export function holdersExportPage(
  { cardId, userId }: Owned,
  after: HolderCursor | null,
  limit = EXPORT_PAGE_SIZE,
): Promise<HolderExportRow[]> {
  // `>=` on created_at lets the (card_id, created_at) index start the scan at the cursor; the rest picks the rows
  // after it among equal times.
  const afterCursor = after
    ? `and p.created_at >= :afterAt::timestamptz
       and (p.created_at > :afterAt::timestamptz or p.id > :afterId::uuid)`
    : ''
  return selectRows<HolderExportRow>(
    `select p.id, p.created_at::text as cursor_at, p.short_code,
            ${epochSeconds('p.created_at')} as joined_s, ${offsetSeconds('p.created_at')} as joined_offset_s,
            ${epochSeconds('p.last_visit_at')} as last_visit_s,
            ${offsetSeconds('p.last_visit_at')} as last_visit_offset_s,
            p.stamps, c.stamps_required, p.rewards_redeemed,
            exists (select 1 from push_subscriptions s where s.pass_id = p.id) as web_push,
            exists (select 1 from apple_registrations r where r.pass_id = p.id) as apple_wallet,
            exists (select 1 from google_wallet_objects g where g.pass_id = p.id and g.state = 'active')
              as google_wallet,
            h.name, h.email, h.email_confirmed_at is not null as email_confirmed, h.phone, h.birth_day, h.birth_month
     from cards c join users u on u.id = c.user_id join passes p on p.card_id = c.id
       left join holder_profiles h on h.pass_id = p.id
     where c.id = :cardId and c.user_id = :userId ${afterCursor}
     order by p.created_at, p.id
     limit :limit`,
    { cardId, userId, limit, afterAt: after?.createdAt ?? null, afterId: after?.id ?? null },
  )
}

export type StampExportRow = {
  id: number
  at_s: number
  at_offset_s: number
  /** Null for a holder who removed their card (the event stays, its pass is gone). */
  short_code: string | null
  kind: 'stamp' | 'undo' | 'redeem'
  count: number
  undone: boolean
}

/** One page of a card's stamp events in the order they happened (id), after the event `afterId` (0: the first). */
export function stampsExportPage({ cardId, userId }: Owned, afterId: number, limit = EXPORT_PAGE_SIZE) {
  return selectRows<StampExportRow>(
    `select e.id, ${epochSeconds('e.created_at')} as at_s, ${offsetSeconds('e.created_at')} as at_offset_s,
            p.short_code, e.kind, e.count, e.undone_at is not null as undone
     from cards c join users u on u.id = c.user_id
       join stamp_events e on e.card_id = c.id
       left join passes p on p.id = e.pass_id
     where c.id = :cardId and c.user_id = :userId and e.id > :afterId
     order by e.id
     limit :limit`,
    { cardId, userId, afterId, limit },
  )
}
