import crypto from 'node:crypto'
import { QueryTypes } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { isUuid } from '#app/utils/uuid.ts'
import { PASS_MESSAGE_ID, PASS_MESSAGE_JOINS, PASS_MESSAGE_VERSION } from './pass-message.server.ts'

/**
 * A holder's pass on a card (docs/product/holders-and-cards.md): an unguessable id for its address /p/{id} and a
 * short code staff can type. Holders give nothing personal, so a pass is all a holder is.
 */
export const SHORT_CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
const SHORT_CODE_LENGTH = 8
const SHORT_CODE_ATTEMPTS = 8
export const isPassId = (value: unknown): value is string => isUuid(value)

/** 32 letters and digits without look-alikes (0/O, 1/I); 256 is a multiple of 32, so every one is equally likely. */
export function randomShortCode(): string {
  return Array.from(crypto.randomBytes(SHORT_CODE_LENGTH), (byte) => SHORT_CODE_ALPHABET[byte % 32]).join('')
}

function select<Row extends object>(query: string, replacements: Record<string, unknown>) {
  return getSequelize().query<Row>(query, { replacements, type: QueryTypes.SELECT })
}

export type JoinableCard = {
  id: string
  userId: string
  slug: string
  title: string
  businessName: string
  stampsRequired: number
  backgroundColor: string
  textColor: string
  stampIcon: string
  reward: string
  terms: string
  hasLogo: boolean
  version: number
  /** What the card asks its holders, as stored (settingsOf in models/holder-profile.server.ts reads it). */
  holderDetails: unknown
}

const CARD_COLUMNS = `c.id, c.user_id as "userId", c.slug, c.title, c.business_name as "businessName",
  c.stamps_required as "stampsRequired", c.background_color as "backgroundColor", c.text_color as "textColor",
  c.stamp_icon as "stampIcon", c.reward, c.terms, c.logo is not null as "hasLogo",
  (extract(epoch from c.updated_at) * 1000)::float8 as version, c.holder_details as "holderDetails"`

/** An active card by its public slug: only active cards take new holders (draft, archived, unknown: null). */
export async function getJoinableCard(slug: string): Promise<JoinableCard | null> {
  if (!/^[a-z0-9-]{3,64}$/.test(slug)) return null
  const rows = await select<JoinableCard>(
    `select ${CARD_COLUMNS} from cards c where c.slug = :slug and c.status = 'active'`,
    { slug },
  )
  return rows[0] ?? null
}

/**
 * Whether the pass exists and belongs to the card (a remembered pass from this device). Holders have no account, so
 * no owner scopes this: the caller found the card with getJoinableCard (public, active), as the name says.
 */
export async function isPassOfJoinableCard(passId: unknown, cardId: string): Promise<boolean> {
  if (!isPassId(passId)) return false
  const rows = await select(`select 1 from passes where id = :passId and card_id = :cardId`, { passId, cardId })
  return rows.length > 0
}

/**
 * A new pass on the card, with a short code no other pass has (a collision retries with another code).
 * `first` is true when the card had no pass before: the caller tells the owner. A holder joins without an account:
 * the caller found the card with getJoinableCard (public, active), as the name says.
 */
export async function createPassOnJoinableCard(cardId: string) {
  for (let attempt = 0; attempt < SHORT_CODE_ATTEMPTS; attempt++) {
    const id = crypto.randomUUID()
    const shortCode = randomShortCode()
    // RETURNING's subquery sees the table as it was before this insert.
    const rows = await select<{ id: string; before: number }>(
      `insert into passes (id, card_id, short_code) values (:id, :cardId, :shortCode)
       on conflict (short_code) do nothing
       returning id, (select count(*)::int from passes where card_id = :cardId) as before`,
      { id, cardId, shortCode },
    )
    if (rows[0]) return { id, shortCode, first: rows[0].before === 0 }
  }
  throw new Error('no free short code after several attempts')
}

/**
 * The pass page's version: the pass row and its card's row, both kept by updated_at triggers, and the pass's latest
 * message (models/pass-message.server.ts). PASS_PAGE_FROM names the rows it reads.
 */
const PASS_PAGE_VERSION = `(extract(epoch from p.updated_at) * 1000000)::bigint || '|'
  || (extract(epoch from c.updated_at) * 1000000)::bigint || '|' || ${PASS_MESSAGE_VERSION}`
const PASS_PAGE_FROM = `passes p join cards c on c.id = p.card_id ${PASS_MESSAGE_JOINS}`

/** The latest message the holder was sent, as their page shows it. */
export type PassMessage = { title: string; body: string; link: string | null; sentAt: Date; timeZone: string }

export type PassView = {
  id: string
  shortCode: string
  stamps: number
  rewardsRedeemed: number
  /** What the page shows, as a version: its live feed reports when it moves (getPassPageVersion). */
  pageVersion: string
  latestMessage: PassMessage | null
  /** Whether the holder gave any details (the pass stops asking). */
  hasProfile: boolean
  card: Omit<JoinableCard, 'userId' | 'slug'>
}

type PassViewRow = JoinableCard & {
  passId: string
  shortCode: string
  stamps: number
  rewardsRedeemed: number
  pageVersion: string
  messageTitle: string | null
  messageBody: string | null
  messageLink: string | null
  messageSentAt: Date | string | null
  timeZone: string
  hasProfile: boolean
}

/** A pass with its card as the holder's page shows it (archived cards included: holders keep their card). */
export async function getPassView(passId: unknown): Promise<PassView | null> {
  if (!isPassId(passId)) return null
  const rows = await select<PassViewRow>(
    `select ${CARD_COLUMNS}, p.id as "passId", p.short_code as "shortCode", p.stamps, ${PASS_PAGE_VERSION} as "pageVersion",
      p.rewards_redeemed as "rewardsRedeemed", n.title as "messageTitle", n.body as "messageBody",
      n.link as "messageLink", greatest(cm.sent_at, pm.sent_at) as "messageSentAt", u.time_zone as "timeZone",
      exists(select 1 from holder_profiles hp where hp.pass_id = p.id) as "hasProfile"
     from ${PASS_PAGE_FROM} join users u on u.id = c.user_id
       left join notifications n on n.id = ${PASS_MESSAGE_ID}
     where p.id = :passId`,
    { passId },
  )
  const row = rows[0]
  if (!row) return null
  const { passId: id, shortCode, stamps, rewardsRedeemed, pageVersion, userId: _userId, slug: _slug, ...rest } = row
  const { messageTitle, messageBody, messageLink, messageSentAt, timeZone, hasProfile, ...card } = rest
  const latestMessage =
    messageTitle !== null && messageBody !== null && messageSentAt !== null
      ? { title: messageTitle, body: messageBody, link: messageLink, sentAt: new Date(messageSentAt), timeZone }
      : null
  return { id, shortCode, stamps, rewardsRedeemed, pageVersion, latestMessage, hasProfile, card }
}

/** What the pass page shows, as a version (the render cache's key, and what the live feed compares). */
export async function getPassPageVersion(passId: string): Promise<string | null> {
  if (!isPassId(passId)) return null
  const rows = await select<{ version: string }>(
    `select ${PASS_PAGE_VERSION} as version from ${PASS_PAGE_FROM} where p.id = :passId`,
    { passId },
  )
  return rows[0]?.version ?? null
}

/**
 * The page versions of many passes in one statement (the live feed asks once a second for every open pass of the
 * process, not once per pass). A pass that is gone has no row.
 */
export async function getPassPageVersions(passIds: string[]): Promise<Map<string, string>> {
  const ids = passIds.filter(isPassId)
  if (ids.length === 0) return new Map()
  const rows = await select<{ id: string; version: string }>(
    `select p.id, ${PASS_PAGE_VERSION} as version from ${PASS_PAGE_FROM} where p.id = any(:ids::uuid[])`,
    { ids: `{${ids.join(',')}}` },
  )
  return new Map(rows.map((row) => [row.id, row.version]))
}

/** The card's logo, for the pass page and the pass's app icons. */
export async function getPassCardLogo(passId: string): Promise<{ data: Buffer; contentType: string } | null> {
  if (!isPassId(passId)) return null
  const rows = await select<{ data: Buffer | null; contentType: string | null }>(
    `select c.logo as data, c.logo_content_type as "contentType" from passes p join cards c on c.id = p.card_id
      where p.id = :passId`,
    { passId },
  )
  const row = rows[0]
  return row?.data ? { data: row.data, contentType: row.contentType ?? 'image/png' } : null
}

export type RemovablePass = {
  id: string
  cardId: string
  stamps: number
  stampsRequired: number
  businessName: string
  /** The card's join page, where a removed holder may start again; null when the card takes no holders now. */
  joinSlug: string | null
}

/** A pass as its removal page shows it (archived cards included: their holders may leave too). */
export async function getRemovablePass(passId: unknown): Promise<RemovablePass | null> {
  if (!isPassId(passId)) return null
  const rows = await select<RemovablePass>(
    `select p.id, p.card_id as "cardId", p.stamps, c.stamps_required as "stampsRequired",
      c.business_name as "businessName",
            case when c.status = 'active' then c.slug end as "joinSlug"
     from passes p join cards c on c.id = p.card_id where p.id = :passId`,
    { passId },
  )
  return rows[0] ?? null
}

/**
 * Removes a pass at its holder's request, with its push subscriptions and the automatic pushes queued for it (both
 * cascade), its Apple Wallet registrations and its Google Wallet object (set INACTIVE). The card's stamp history
 * stays, no longer linked to any pass (migration 0009): the owner's figures of stamps given and rewards redeemed do
 * not shrink because a holder left. False when there was no such pass. No owner: the caller checked that the request
 * comes from the holder's device (its signed join cookie names the pass).
 */
export async function deletePassCheckedByHolderDevice({ passId, cardId }: { passId: string; cardId: string }) {
  if (!isPassId(passId)) return false
  // Its Apple Wallet devices stop hearing about it too (registrations name the pass without a foreign key), and its
  // Google Wallet object is set INACTIVE (the row outlives the pass; the statement sees the object before the cascade).
  const rows = await select(
    `with removed as (delete from passes where id = :passId and card_id = :cardId returning id),
     unregistered as (delete from apple_registrations where pass_id in (select id from removed)),
     ended as (insert into google_wallet_updates (kind, card_id, pass_id)
       select 'inactive', o.card_id, o.pass_id from google_wallet_objects o
       where o.pass_id in (select id from removed) and o.state = 'active')
     select id from removed`,
    { passId, cardId },
  )
  return rows.length > 0
}
