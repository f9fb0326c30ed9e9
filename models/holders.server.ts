import { type HolderFilter, type HolderSort } from '#app/utils/holders-query.ts'
import { isUuid } from '#app/utils/uuid.ts'
import { AUDIENCE_CONDITION } from './holder-audience.server.ts'
import { rewardsEarnedSql } from './loyalty-scheme.server.ts'
import { selectRows } from './transaction.server.ts'

/**
 * A card's holders (/account/{cardId}/holders) and one holder's history (docs/product/insights-and-exports.md). Every
 * function is scoped by { cardId, userId }: another owner's card or pass finds nothing.
 */
type Owned = { cardId: string; userId: string }

/** How a holder is reached: a browser with notifications on, an Apple Wallet device, an active Google Wallet pass. */
export type HolderReach = { webPush: boolean; appleWallet: boolean; googleWallet: boolean }

export type HolderRow = {
  id: string
  shortCode: string
  joinedAt: Date
  lastVisitAt: Date
  stamps: number
  stampsRequired: number
  rewardsEarned: number
  rewardsRedeemed: number
  reach: HolderReach
  /** What the holder gave (issue 34), each null where not given. */
  given: { name: string | null; email: string | null; phone: string | null }
  /** Where this row stands in the order: the next or previous page's cursor starts after or before it. */
  key: { value: string; id: string }
}

/** A row's place in the list's order: its sort value (last visit to the microsecond, or stamps) and its id. */
export type HolderKey = { value: string; id: string }
export type HolderPosition = { after?: HolderKey; before?: HolderKey }

/** The exact last visit as text (a Date keeps milliseconds only, and the cursor must match the row). */
const LAST_VISIT_KEY = `to_char(p.last_visit_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`

const SORT_COLUMN: Record<HolderSort, { column: string; key: string; cast: string }> = {
  'last-visit': { column: 'last_visit_at', key: LAST_VISIT_KEY, cast: 'timestamptz' },
  stamps: { column: 'stamps', key: 'p.stamps::text', cast: 'integer' },
}

// The filters are the broadcasts' audiences: one definition of each (models/holder-audience.server.ts).
const FILTER_SQL: Record<HolderFilter, string> = {
  all: '',
  inactive: `and ${AUDIENCE_CONDITION.inactive}`,
  'one-to-go': `and ${AUDIENCE_CONDITION.one_to_go}`,
  'reward-waiting': `and ${AUDIENCE_CONDITION.reward_waiting}`,
}

/**
 * Rows of passes `p` scoped to the owner's card `c`, filtered and searched. A search is a prefix of a short code
 * (letters and digits only, checked by the route): besides the LIKE, a range the unique index on short_code serves,
 * so a search does not read every pass of the card (digits sort before capitals, as in every collation).
 */
function holdersWhere(filter: HolderFilter, search: string | undefined) {
  const searched = search
    ? `and p.short_code like :prefix and p.short_code >= :search ${prefixEnd(search) ? 'and p.short_code < :searchEnd' : ''}`
    : ''
  return `from passes p join cards c on c.id = p.card_id and c.user_id = :userId
    where p.card_id = :cardId ${FILTER_SQL[filter]} ${searched}`
}

const SORTED_CHARACTERS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'

/** The first string past every code starting with `prefix` ('AB9' → 'ABA', 'AZ' → 'B'); null past 'ZZ…'. */
function prefixEnd(prefix: string): string | null {
  for (let end = prefix.length; end > 0; end--) {
    const next = SORTED_CHARACTERS[SORTED_CHARACTERS.indexOf(prefix[end - 1]!) + 1]
    if (next) return prefix.slice(0, end - 1) + next
  }
  return null
}

const searchReplacements = (search: string | undefined) =>
  search ? { prefix: `${search}%`, search, searchEnd: prefixEnd(search) } : {}

type HolderDbRow = {
  id: string
  short_code: string
  created_at: Date
  last_visit_at: Date
  stamps: number
  stamps_required: number
  rewards_redeemed: number
  rewards_earned: number
  web_push: boolean
  apple_wallet: boolean
  google_wallet: boolean
  sort_key: string
  name: string | null
  email: string | null
  phone: string | null
}

/**
 * The reach flags of `page` (a pass row), looked up for the page's rows only. Google's is a scalar lookup by its
 * key: as exists() the planner hashed the whole table instead.
 */
const REACH_COLUMNS = `
  exists (select 1 from push_subscriptions s where s.pass_id = page.id) as web_push,
  exists (select 1 from apple_registrations r where r.pass_id = page.id) as apple_wallet,
  coalesce((select g.state = 'active' from google_wallet_objects g where g.pass_id = page.id), false) as google_wallet`

// The reward the current round has earned counts, though not redeemed yet (the loyalty scheme's rewardsEarned).
const PASS_REWARDS_EARNED = rewardsEarnedSql('p', 'c')

function toHolderRow(row: HolderDbRow): HolderRow {
  return {
    id: row.id,
    shortCode: row.short_code,
    joinedAt: new Date(row.created_at),
    lastVisitAt: new Date(row.last_visit_at),
    stamps: row.stamps,
    stampsRequired: row.stamps_required,
    rewardsEarned: row.rewards_earned,
    rewardsRedeemed: row.rewards_redeemed,
    reach: { webPush: row.web_push, appleWallet: row.apple_wallet, googleWallet: row.google_wallet },
    given: { name: row.name, email: row.email, phone: row.phone },
    key: { value: row.sort_key, id: row.id },
  }
}

/**
 * One page of a card's holders, `limit` rows in the list's order (newest last visit first, or most stamps first;
 * ties by id), after or before a row's key. Keyset paging on passes (card_id, last_visit_at, id) and (card_id,
 * stamps, id): a page costs the same at the 2,000th page as at the first. `more` says whether rows lie beyond the
 * page in the direction read. Returns id, short code, joined, last visit, stamps (of required), rewards earned and
 * redeemed, and the reach flags (three exists() per row of the page). An empty list for another owner's card.
 */
export async function listHolders(
  { cardId, userId }: Owned,
  {
    filter,
    sort,
    search,
    position = {},
    limit,
  }: { filter: HolderFilter; sort: HolderSort; search?: string; position?: HolderPosition; limit: number },
): Promise<{ rows: HolderRow[]; more: boolean }> {
  if (!isUuid(cardId) || !isUuid(userId)) return { rows: [], more: false }
  const { column, key, cast } = SORT_COLUMN[sort]
  const cursor = position.before ?? position.after
  // Read backwards from `before` (ascending), then put the page back in the list's order.
  const backwards = Boolean(position.before)
  const comparison = cursor ? `and (p.${column}, p.id) ${backwards ? '>' : '<'} (:value::${cast}, :cursorId::uuid)` : ''
  const direction = backwards ? 'asc' : 'desc'
  const rows = await selectRows<HolderDbRow>(
    `select page.*, ${REACH_COLUMNS}, h.name, h.email, h.phone
     from (
       select p.id, p.short_code, p.created_at, p.last_visit_at, p.stamps, c.stamps_required, p.rewards_redeemed,
              ${PASS_REWARDS_EARNED} as rewards_earned,
              ${key} as sort_key
       ${holdersWhere(filter, search)} ${comparison}
       order by p.${column} ${direction}, p.id ${direction}
       limit :limit
     ) page left join holder_profiles h on h.pass_id = page.id
     order by page.${column} desc, page.id desc`,
    {
      cardId,
      userId,
      ...searchReplacements(search),
      value: cursor?.value,
      cursorId: cursor?.id,
      limit: limit + 1,
    },
  )
  const more = rows.length > limit
  // The extra row tells whether there is more; it lies at the far end in the direction read.
  const page = more ? (backwards ? rows.slice(1) : rows.slice(0, limit)) : rows
  return { rows: page.map(toHolderRow), more }
}

/** How many of the card's holders the filter and search match: one count over the card's index. */
export async function countHolders(
  { cardId, userId }: Owned,
  { filter, search }: { filter: HolderFilter; search?: string },
): Promise<number> {
  if (!isUuid(cardId) || !isUuid(userId)) return 0
  const [row] = await selectRows<{ count: number }>(`select count(*)::int as count ${holdersWhere(filter, search)}`, {
    cardId,
    userId,
    ...searchReplacements(search),
  })
  return row?.count ?? 0
}

/** One holder of the owner's card, as a row of the list (without the cursor's use), or null. */
export async function getHolder({ cardId, userId, passId }: Owned & { passId: string }): Promise<HolderRow | null> {
  if (!isUuid(cardId) || !isUuid(userId) || !isUuid(passId)) return null
  const [row] = await selectRows<HolderDbRow>(
    `select page.*, ${REACH_COLUMNS}, h.name, h.email, h.phone
     from (
       select p.id, p.short_code, p.created_at, p.last_visit_at, p.stamps, c.stamps_required, p.rewards_redeemed,
              ${PASS_REWARDS_EARNED} as rewards_earned,
              p.id::text as sort_key
       from passes p join cards c on c.id = p.card_id and c.user_id = :userId
       where p.card_id = :cardId and p.id = :passId
     ) page left join holder_profiles h on h.pass_id = page.id`,
    { cardId, userId, passId },
  )
  return row ? toHolderRow(row) : null
}

export type HolderEvent = {
  id: string
  kind: 'stamp' | 'undo' | 'redeem'
  count: number
  at: Date
  /** A stamp taken back by an undo. */
  undoneAt: Date | null
}

/**
 * A holder's stamps, undos and redemptions, newest first, at most `limit` (`more` when there are older ones).
 * Returns id, kind, count, time and, for a stamp, when it was undone.
 */
export async function listHolderEvents(
  { cardId, userId, passId }: Owned & { passId: string },
  limit: number,
): Promise<{ events: HolderEvent[]; more: boolean }> {
  if (!isUuid(cardId) || !isUuid(userId) || !isUuid(passId)) return { events: [], more: false }
  const rows = await selectRows<{
    id: string
    kind: HolderEvent['kind']
    count: number
    created_at: Date
    undone_at: Date | null
  }>(
    `select e.id::text as id, e.kind, e.count, e.created_at, e.undone_at
     from stamp_events e join cards c on c.id = e.card_id and c.user_id = :userId
     where e.pass_id = :passId and e.card_id = :cardId
     order by e.created_at desc, e.id desc
     limit :limit`,
    { cardId, userId, passId, limit: limit + 1 },
  )
  return {
    events: rows.slice(0, limit).map((row) => ({
      id: row.id,
      kind: row.kind,
      count: row.count,
      at: new Date(row.created_at),
      undoneAt: row.undone_at ? new Date(row.undone_at) : null,
    })),
    more: rows.length > limit,
  }
}

export type HolderMessage = {
  id: string
  kind: 'message' | 'stamp' | 'reward'
  title: string
  at: Date
  channels: HolderReach
}

/**
 * The messages that reached a holder, newest first, each once with the channels it went by, at most `limit`
 * (`more` when there are older ones): web push sent to one of the pass's browsers (or, for the holder's own stamp
 * push, to any browser of the message: notifications.pass_id names the pass, and a browser that left loses its
 * link), an Apple Wallet push that carried the message, a Google Wallet message added to the pass. Only what was
 * sent counts. Returns id, kind, title, time (queued, else created) and the channels.
 */
export async function listHolderMessages(
  { cardId, userId, passId }: Owned & { passId: string },
  limit: number,
): Promise<{ messages: HolderMessage[]; more: boolean }> {
  if (!isUuid(cardId) || !isUuid(userId) || !isUuid(passId)) return { messages: [], more: false }
  const rows = await selectRows<{
    id: string
    kind: HolderMessage['kind']
    title: string
    at: Date
    web_push: boolean
    apple_wallet: boolean
    google_wallet: boolean
  }>(
    `with reached (notification_id, channel) as (
       select d.notification_id, 'web' from deliveries d
         join push_subscriptions s on s.id = d.push_subscription_id
         where s.pass_id = :passId and d.status = 'sent'
       union all
       select n.id, 'web' from notifications n
         where n.card_id = :cardId and n.pass_id = :passId
           and exists (select 1 from deliveries d where d.notification_id = n.id and d.status = 'sent')
       union all
       select a.notification_id, 'apple' from apple_pushes a
         where a.pass_id = :passId and a.notification_id is not null and a.status = 'sent'
       union all
       select g.notification_id, 'google' from google_wallet_updates g
         where g.pass_id = :passId and g.kind = 'message' and g.status = 'sent'
     )
     select n.id, n.kind, n.title, coalesce(n.queued_at, n.created_at) as at,
            bool_or(r.channel = 'web') as web_push, bool_or(r.channel = 'apple') as apple_wallet,
            bool_or(r.channel = 'google') as google_wallet
     from reached r join notifications n on n.id = r.notification_id
       join cards c on c.id = n.card_id and c.user_id = :userId
     where n.card_id = :cardId
     group by n.id
     order by coalesce(n.queued_at, n.created_at) desc, n.id desc
     limit :limit`,
    { cardId, userId, passId, limit: limit + 1 },
  )
  return {
    messages: rows.slice(0, limit).map((row) => ({
      id: row.id,
      kind: row.kind,
      title: row.title,
      at: new Date(row.at),
      channels: { webPush: row.web_push, appleWallet: row.apple_wallet, googleWallet: row.google_wallet },
    })),
    more: rows.length > limit,
  }
}
