import crypto from 'node:crypto'
import { compactVerify, decodeJwt, errors } from 'jose'

/**
 * Google's OAuth 2.0 token endpoint, as far as a service account's JWT-bearer grant goes (RFC 7523; Google's
 * "Using OAuth 2.0 for Server to Server Applications"), for the Google Wallet fake: the checks Google makes of the
 * form and its RS256 assertion, with Google's error codes and wording. Tokens are the fake's to keep.
 */

export const WALLET_SCOPE = 'https://www.googleapis.com/auth/wallet_object.issuer'
const GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:jwt-bearer'
const MAX_LIFETIME_S = 3600
const MAX_CLOCK_AHEAD_S = 300

export type GrantRefusal = { error: string; error_description: string }

export type GrantCheck = {
  clientEmail: string
  publicKey: crypto.KeyObject
  tokenUri: string
  now: () => number
}

/** Why Google would refuse this token request, or undefined when it would grant a token. */
export async function checkJwtBearerGrant(
  contentType: string | undefined,
  form: string,
  check: GrantCheck,
): Promise<GrantRefusal | undefined> {
  if (!/^application\/x-www-form-urlencoded\b/i.test(contentType ?? '')) {
    return { error: 'invalid_request', error_description: `Unsupported content type: ${contentType ?? 'none'}` }
  }
  const params = new URLSearchParams(form)
  const grantType = params.get('grant_type')
  if (!grantType) return { error: 'invalid_request', error_description: 'Missing required parameter: grant_type' }
  if (grantType !== GRANT_TYPE) {
    return { error: 'unsupported_grant_type', error_description: `Invalid grant_type: ${grantType}` }
  }
  const assertion = params.get('assertion')
  if (!assertion) return { error: 'invalid_request', error_description: 'Missing required parameter: assertion' }

  const invalid = (description: string) => ({ error: 'invalid_grant', error_description: description })
  const timeframe = invalid(
    'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and ' +
      'exp values in the JWT claim.',
  )
  let claims: ReturnType<typeof decodeJwt>
  try {
    claims = decodeJwt(assertion)
  } catch {
    return invalid('Invalid JWT: the assertion is not a JWT.')
  }
  try {
    // The signature only: the claims are checked below, with Google's wording.
    await compactVerify(assertion, check.publicKey, { algorithms: ['RS256'] })
  } catch (error) {
    if (error instanceof errors.JWSSignatureVerificationFailed) return invalid('Invalid JWT Signature.')
    if (error instanceof errors.JOSEAlgNotAllowed) return invalid('Invalid JWT: the algorithm must be RS256.')
    return invalid(`Invalid JWT: ${(error as Error).message}`)
  }
  if (claims.iss !== check.clientEmail) return invalid('Invalid grant: account not found')
  if (claims.aud !== check.tokenUri && !(Array.isArray(claims.aud) && claims.aud.includes(check.tokenUri))) {
    return invalid(`Invalid JWT: Failed audience check. The expected value was ${check.tokenUri}`)
  }
  const { iat, exp } = claims
  const nowS = check.now() / 1000
  if (typeof iat !== 'number' || typeof exp !== 'number') return timeframe
  if (exp - iat > MAX_LIFETIME_S || exp <= iat || exp <= nowS || iat > nowS + MAX_CLOCK_AHEAD_S) return timeframe
  const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ') : []
  if (!scopes.includes(WALLET_SCOPE)) {
    return { error: 'invalid_scope', error_description: 'Invalid OAuth scope or ID token audience provided.' }
  }
  return undefined
}

/** An access token in the form Google's take. */
export function newAccessToken() {
  return `ya29.fake-${crypto.randomBytes(24).toString('base64url')}`
}
