import { QueryTypes } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { hashToken } from './session.server.ts'

export type OAuthProvider = 'google' | 'apple'

export const OAUTH_STATE_TTL_MS = 10 * 60 * 1000

export type OAuthStateInput = {
  state: string
  provider: OAuthProvider
  codeVerifier: string
  nonce: string
  redirectTo: string | null
  /** Hash of the browser's binding cookie; null only in rows saved before every provider was bound to a browser. */
  browserHash: string | null
}

/** Remembers a sign-in that was just sent to the provider; only the state's hash is stored. */
export async function saveOAuthState(input: OAuthStateInput) {
  const sequelize = getSequelize()
  // Expired rows are kept an hour so a late callback is told "expired" rather than "unknown", then removed.
  await sequelize.query(`delete from oauth_states where expires_at < now() - interval '1 hour'`)
  await sequelize.query(
    `insert into oauth_states (state_hash, provider, code_verifier, nonce, redirect_to, browser_hash, expires_at)
     values (:hash, :provider, :codeVerifier, :nonce, :redirectTo, :browserHash,
       now() + make_interval(secs => :seconds))`,
    {
      replacements: {
        hash: hashToken(input.state),
        provider: input.provider,
        codeVerifier: input.codeVerifier,
        nonce: input.nonce,
        redirectTo: input.redirectTo,
        browserHash: input.browserHash,
        seconds: OAUTH_STATE_TTL_MS / 1000,
      },
    },
  )
}

export type OAuthStateLookup =
  | { status: 'valid'; codeVerifier: string; nonce: string; redirectTo: string | null; browserHash: string | null }
  | { status: 'expired' | 'unknown' }

/** Takes a state out of the table: exactly one callback can use it, however many race with the same value. */
export async function consumeOAuthState(state: string, provider: OAuthProvider): Promise<OAuthStateLookup> {
  const [row] = await getSequelize().query<{
    code_verifier: string
    nonce: string
    redirect_to: string | null
    browser_hash: string | null
    live: boolean
  }>(
    `delete from oauth_states where state_hash = :hash and provider = :provider
     returning code_verifier, nonce, redirect_to, browser_hash, expires_at > now() as live`,
    { replacements: { hash: hashToken(state), provider }, type: QueryTypes.SELECT },
  )
  if (!row) return { status: 'unknown' }
  if (!row.live) return { status: 'expired' }
  return {
    status: 'valid',
    codeVerifier: row.code_verifier,
    nonce: row.nonce,
    redirectTo: row.redirect_to,
    browserHash: row.browser_hash,
  }
}
