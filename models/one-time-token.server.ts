import crypto from 'node:crypto'
import { QueryTypes, type Transaction } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { hashToken } from './session.server.ts'

export type TokenKind = 'email_verification' | 'password_reset' | 'premade_login' | 'email_change' | 'staff_invitation'

/** How long each kind of link stays valid (docs/product/passwords-and-tokens.md, "Tokens and e-mail"). */
export const TOKEN_TTL_MS: Record<TokenKind, number> = {
  email_verification: 48 * 60 * 60 * 1000,
  password_reset: 60 * 60 * 1000,
  premade_login: 7 * 24 * 60 * 60 * 1000,
  email_change: 48 * 60 * 60 * 1000,
  // As long as the invitation holds its seat (users.invitation_expires_at, app/utils/staff.ts).
  staff_invitation: 7 * 24 * 60 * 60 * 1000,
}

/** Issues a 256-bit random token; only its hash is stored. Returns the token for the link. */
export async function issueToken(
  input: { userId: string; kind: TokenKind; payload?: Record<string, unknown> },
  transaction?: Transaction,
): Promise<string> {
  const token = crypto.randomBytes(32).toString('base64url')
  await getSequelize().query(
    `insert into one_time_tokens (user_id, kind, token_hash, payload, expires_at)
     values (:userId, :kind, :hash, :payload::jsonb, now() + make_interval(secs => :seconds))`,
    {
      replacements: {
        userId: input.userId,
        kind: input.kind,
        hash: hashToken(token),
        payload: JSON.stringify(input.payload ?? {}),
        seconds: TOKEN_TTL_MS[input.kind] / 1000,
      },
      transaction,
    },
  )
  return token
}

export type TokenState =
  | { state: 'valid'; userId: string; payload: Record<string, unknown> }
  | { state: 'used'; userId: string; payload: Record<string, unknown> }
  | { state: 'expired' | 'unknown' }

/** What a token is, without using it (the change-password page checks its link on load). */
export async function inspectToken(token: string, kind: TokenKind, transaction?: Transaction): Promise<TokenState> {
  const [row] = await getSequelize().query<{
    user_id: string
    payload: Record<string, unknown>
    used: boolean
    expired: boolean
  }>(
    `select user_id, payload, used_at is not null as used, expires_at <= now() as expired
     from one_time_tokens where token_hash = :hash and kind = :kind`,
    { replacements: { hash: hashToken(token), kind }, type: QueryTypes.SELECT, transaction },
  )
  if (!row) return { state: 'unknown' }
  if (row.used) return { state: 'used', userId: row.user_id, payload: row.payload }
  if (row.expired) return { state: 'expired' }
  return { state: 'valid', userId: row.user_id, payload: row.payload }
}

/**
 * Uses a token once: the update succeeds for exactly one caller, however many requests race with the same link.
 * Falls back to inspectToken to tell the caller why it failed.
 */
export async function consumeToken(token: string, kind: TokenKind, transaction?: Transaction): Promise<TokenState> {
  const [row] = await getSequelize().query<{ user_id: string; payload: Record<string, unknown> }>(
    `update one_time_tokens set used_at = now()
     where token_hash = :hash and kind = :kind and used_at is null and expires_at > now()
     returning user_id, payload`,
    { replacements: { hash: hashToken(token), kind }, type: QueryTypes.SELECT, transaction },
  )
  if (row) return { state: 'valid', userId: row.user_id, payload: row.payload }
  // Inside the caller's transaction: with the embedded database a second connection would wait for this one.
  return inspectToken(token, kind, transaction)
}

/** A new link replaces the old ones of the same kind (a second reset e-mail makes the first link void). */
export async function revokeTokens(userId: string, kind: TokenKind, transaction?: Transaction) {
  await getSequelize().query(
    `update one_time_tokens set used_at = now() where user_id = :userId and kind = :kind and used_at is null`,
    { replacements: { userId, kind }, transaction },
  )
}
