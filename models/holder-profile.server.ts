import crypto from 'node:crypto'
import { type Transaction } from 'sequelize'
import { ASK_WHEN, HOLDER_FIELDS, type HolderDetailsSettings } from '#app/utils/holder-details.ts'
import { isUuid } from './card.server.ts'
import { hashToken } from './session.server.ts'
import { selectRows, withTransaction } from './transaction.server.ts'

/**
 * What a card asks its holders (`cards.holder_details`) and what each holder gave (`holder_profiles`), migration
 * 0024. The settings are read and written scoped by the card's owner; a profile belongs to its pass, whose id is the
 * holder's capability. Profile fields are the holder's: they go into no log line, metric or error (the callers log
 * ids only).
 */

/** The stored settings, read defensively (a row written by an older build keeps only the fields it knows). */
export function settingsOf(stored: unknown): HolderDetailsSettings | null {
  if (!stored || typeof stored !== 'object') return null
  const value = stored as Partial<HolderDetailsSettings>
  const fields = Array.isArray(value.fields) ? HOLDER_FIELDS.filter((field) => value.fields!.includes(field)) : []
  return {
    fields,
    when: ASK_WHEN.includes(value.when as never) ? value.when! : 'after_stamps',
    afterStamps: Number.isInteger(value.afterStamps) ? value.afterStamps! : 2,
    privacyNote: typeof value.privacyNote === 'string' ? value.privacyNote : '',
    phoneCountry: typeof value.phoneCountry === 'string' ? value.phoneCountry : 'US',
  }
}

/**
 * One of the owner's cards with what it asks, and the owner's time zone (the default phone country); null if not
 * theirs.
 */
export async function getHolderDetailsSettings({ userId, cardId }: { userId: string; cardId: string }) {
  if (!isUuid(userId) || !isUuid(cardId)) return null
  const [row] = await selectRows<{ settings: unknown; timeZone: string }>(
    `select c.holder_details as settings, u.time_zone as "timeZone"
     from cards c join users u on u.id = c.user_id where c.id = :cardId and c.user_id = :userId`,
    { cardId, userId },
  )
  return row ? { settings: settingsOf(row.settings), timeZone: row.timeZone } : null
}

/** Saves what one of the owner's cards asks; false when the card is not theirs (or is gone). */
export async function saveHolderDetailsSettings({
  userId,
  cardId,
  settings,
}: {
  userId: string
  cardId: string
  settings: HolderDetailsSettings
}) {
  if (!isUuid(userId) || !isUuid(cardId)) return false
  // The card's row changes, so every pass page of it (versioned by cards.updated_at) shows the new question.
  const rows = await selectRows<{ id: string }>(
    `update cards set holder_details = :settings::jsonb where id = :cardId and user_id = :userId returning id`,
    { cardId, userId, settings: JSON.stringify(settings) },
  )
  return rows.length > 0
}

export type HolderProfile = {
  name: string | null
  email: string | null
  emailConfirmed: boolean
  phone: string | null
  birthday: { day: number; month: number } | null
}

type ProfileRow = {
  name: string | null
  email: string | null
  emailConfirmed: boolean
  phone: string | null
  birthDay: number | null
  birthMonth: number | null
}

const PROFILE_COLUMNS = `name, email, email_confirmed_at is not null as "emailConfirmed", phone,
  birth_day as "birthDay", birth_month as "birthMonth"`

const profileOf = ({ birthDay, birthMonth, ...row }: ProfileRow): HolderProfile => ({
  ...row,
  birthday: birthDay !== null && birthMonth !== null ? { day: birthDay, month: birthMonth } : null,
})

/** What the holder of a pass gave; null when they gave nothing. */
export async function getHolderProfile(passId: string): Promise<HolderProfile | null> {
  if (!isUuid(passId)) return null
  const [row] = await selectRows<ProfileRow>(`select ${PROFILE_COLUMNS} from holder_profiles where pass_id = :passId`, {
    passId,
  })
  return row ? profileOf(row) : null
}

/** A holder's details to keep: each field given replaces the one kept; undefined leaves it as it was. */
export type ProfileChange = {
  name?: string
  email?: string
  phone?: string
  birthday?: { day: number; month: number }
}

/** How long the link that confirms a holder's e-mail works (as an owner's confirmation link). */
export const EMAIL_CONFIRMATION_TTL_MS = 48 * 60 * 60 * 1000

/**
 * Keeps the details a holder gave for their pass, in one transaction with the pass's page version (so the pass page
 * stops asking) and, for a new e-mail, its confirmation link. Returns the token to mail for a new, unconfirmed
 * address; null when the pass is gone.
 */
export async function saveHolderProfile(
  { passId, change }: { passId: string; change: ProfileChange },
  afterSave?: (saved: { email: string; token: string } | null, transaction: Transaction) => Promise<void>,
): Promise<{ emailToConfirm: string | null } | null> {
  if (!isUuid(passId)) return null
  return withTransaction(async (transaction) => {
    const [pass] = await selectRows<{ cardId: string }>(
      `update passes set updated_at = now() where id = :passId returning card_id as "cardId"`,
      { passId },
      transaction,
    )
    if (!pass) return null
    const [before] = await selectRows<{ email: string | null; emailConfirmed: boolean }>(
      `select email, email_confirmed_at is not null as "emailConfirmed" from holder_profiles where pass_id = :passId`,
      { passId },
      transaction,
    )
    const emailChanged = change.email !== undefined && change.email !== before?.email
    await selectRows(
      `insert into holder_profiles as h (pass_id, card_id, name, email, phone, birth_day, birth_month)
       values (:passId, :cardId, :name, :email, :phone, :birthDay, :birthMonth)
       on conflict (pass_id) do update set
         name = coalesce(excluded.name, h.name),
         email = coalesce(excluded.email, h.email),
         email_confirmed_at = case when excluded.email is null or excluded.email = h.email then h.email_confirmed_at end,
         phone = coalesce(excluded.phone, h.phone),
         birth_day = coalesce(excluded.birth_day, h.birth_day),
         birth_month = coalesce(excluded.birth_month, h.birth_month)
       returning pass_id`,
      {
        passId,
        cardId: pass.cardId,
        name: change.name ?? null,
        email: change.email ?? null,
        phone: change.phone ?? null,
        birthDay: change.birthday?.day ?? null,
        birthMonth: change.birthday?.month ?? null,
      },
      transaction,
    )
    let toConfirm: { email: string; token: string } | null = null
    if (emailChanged && change.email) {
      toConfirm = { email: change.email, token: await issueHolderToken({ passId, email: change.email }, transaction) }
    }
    await afterSave?.(toConfirm, transaction)
    return { emailToConfirm: toConfirm?.email ?? null }
  })
}

async function issueHolderToken({ passId, email }: { passId: string; email: string }, transaction: Transaction) {
  const token = crypto.randomBytes(32).toString('base64url')
  // An earlier link for this pass stops working: only the newest address can be confirmed.
  await selectRows(
    `update holder_tokens set used_at = now()
     where pass_id = :passId and kind = 'email_confirmation' and used_at is null returning pass_id`,
    { passId },
    transaction,
  )
  await selectRows(
    `insert into holder_tokens (token_hash, pass_id, kind, email, expires_at)
     values (:hash, :passId, 'email_confirmation', :email, now() + make_interval(secs => :seconds)) returning pass_id`,
    { hash: hashToken(token), passId, email, seconds: EMAIL_CONFIRMATION_TTL_MS / 1000 },
    transaction,
  )
  return token
}

export type EmailConfirmation =
  { state: 'confirmed'; passId: string } | { state: 'used' | 'expired'; passId: string } | { state: 'unknown' }

/**
 * Confirms a holder's e-mail with the link's token, once: the address must still be the one the link was sent to
 * (a holder who changed it since confirms the new one with the new link).
 */
export async function confirmHolderEmail(token: string): Promise<EmailConfirmation> {
  if (!/^[\w-]{20,100}$/.test(token)) return { state: 'unknown' }
  return withTransaction(async (transaction) => {
    const [row] = await selectRows<{ passId: string; email: string; used: boolean; expired: boolean }>(
      `select pass_id as "passId", email, used_at is not null as used, expires_at <= now() as expired
       from holder_tokens where token_hash = :hash and kind = 'email_confirmation' for update`,
      { hash: hashToken(token) },
      transaction,
    )
    if (!row) return { state: 'unknown' }
    if (row.used) return { state: 'used', passId: row.passId }
    if (row.expired) return { state: 'expired', passId: row.passId }
    await selectRows(
      `update holder_tokens set used_at = now() where token_hash = :hash returning pass_id`,
      { hash: hashToken(token) },
      transaction,
    )
    const confirmed = await selectRows(
      `update holder_profiles set email_confirmed_at = now()
       where pass_id = :passId and email = :email returning pass_id`,
      { passId: row.passId, email: row.email },
      transaction,
    )
    return confirmed.length > 0 ? { state: 'confirmed', passId: row.passId } : { state: 'used', passId: row.passId }
  })
}

/** A pass's card as the holder's details page needs it, with what the holder gave; null for no such pass. */
export async function getPassHolderDetails(passId: string) {
  if (!isUuid(passId)) return null
  const [row] = await selectRows<
    { title: string; businessName: string; settings: unknown } & { [K in keyof ProfileRow]: ProfileRow[K] | null } & {
      hasProfile: boolean
    }
  >(
    `select c.title, c.business_name as "businessName", c.holder_details as settings,
            h.pass_id is not null as "hasProfile", h.name, h.email,
            coalesce(h.email_confirmed_at is not null, false) as "emailConfirmed", h.phone,
            h.birth_day as "birthDay", h.birth_month as "birthMonth"
     from passes p join cards c on c.id = p.card_id left join holder_profiles h on h.pass_id = p.id
     where p.id = :passId`,
    { passId },
  )
  if (!row) return null
  const { title, businessName, settings, hasProfile, ...profile } = row
  return {
    card: { title, businessName },
    settings: settingsOf(settings),
    profile: hasProfile ? profileOf({ ...profile, emailConfirmed: Boolean(profile.emailConfirmed) }) : null,
  }
}

type OwnedPass = { userId: string; cardId: string; passId: string }

/** The details a holder of the owner's card gave, with the card's phone country; null for another owner's pass. */
export async function getOwnedHolderProfile({ userId, cardId, passId }: OwnedPass) {
  if (!isUuid(userId) || !isUuid(cardId) || !isUuid(passId)) return null
  const [row] = await selectRows<
    { settings: unknown } & { [K in keyof ProfileRow]: ProfileRow[K] | null } & {
      hasProfile: boolean
    }
  >(
    `select c.holder_details as settings, h.pass_id is not null as "hasProfile", h.name, h.email,
            coalesce(h.email_confirmed_at is not null, false) as "emailConfirmed", h.phone,
            h.birth_day as "birthDay", h.birth_month as "birthMonth"
     from passes p join cards c on c.id = p.card_id and c.user_id = :userId
       left join holder_profiles h on h.pass_id = p.id
     where p.id = :passId and p.card_id = :cardId`,
    { userId, cardId, passId },
  )
  if (!row) return null
  const { settings, hasProfile, ...profile } = row
  return {
    settings: settingsOf(settings),
    profile: hasProfile ? profileOf({ ...profile, emailConfirmed: Boolean(profile.emailConfirmed) }) : null,
  }
}

/**
 * The owner corrects what a holder of their card gave (a request the owner received): every field is replaced, an
 * empty one erased; nothing left erases the row. A changed e-mail is unconfirmed until its holder opens the new link
 * (`afterSave` queues it in the transaction). False for another owner's pass.
 */
export async function correctHolderProfile(
  { userId, cardId, passId, profile }: OwnedPass & { profile: Omit<HolderProfile, 'emailConfirmed'> },
  afterSave?: (toConfirm: { email: string; token: string } | null, transaction: Transaction) => Promise<void>,
): Promise<boolean> {
  if (!isUuid(userId) || !isUuid(cardId) || !isUuid(passId)) return false
  return withTransaction(async (transaction) => {
    const [pass] = await selectRows<{ email: string | null }>(
      `update passes p set updated_at = now() from cards c
       where p.id = :passId and p.card_id = :cardId and c.id = p.card_id and c.user_id = :userId
       returning (select email from holder_profiles where pass_id = p.id) as email`,
      { userId, cardId, passId },
      transaction,
    )
    if (!pass) return false
    const { name, email, phone, birthday } = profile
    if (!name && !email && !phone && !birthday) {
      await selectRows(`delete from holder_profiles where pass_id = :passId returning pass_id`, { passId }, transaction)
      await selectRows(`delete from holder_tokens where pass_id = :passId returning pass_id`, { passId }, transaction)
      return true
    }
    await selectRows(
      `insert into holder_profiles as h (pass_id, card_id, name, email, phone, birth_day, birth_month)
       values (:passId, :cardId, :name, :email, :phone, :birthDay, :birthMonth)
       on conflict (pass_id) do update set name = excluded.name, email = excluded.email,
         email_confirmed_at = case when excluded.email = h.email then h.email_confirmed_at end,
         phone = excluded.phone, birth_day = excluded.birth_day, birth_month = excluded.birth_month
       returning pass_id`,
      {
        passId,
        cardId,
        name: name ?? null,
        email: email ?? null,
        phone: phone ?? null,
        birthDay: birthday?.day ?? null,
        birthMonth: birthday?.month ?? null,
      },
      transaction,
    )
    const toConfirm =
      email && email !== pass.email ? { email, token: await issueHolderToken({ passId, email }, transaction) } : null
    if (!email) {
      await selectRows(
        `update holder_tokens set used_at = now() where pass_id = :passId and used_at is null returning pass_id`,
        { passId },
        transaction,
      )
    }
    await afterSave?.(toConfirm, transaction)
    return true
  })
}
