import { createRemoteJWKSet, importPKCS8, jwtVerify, SignJWT } from 'jose'
import { z } from 'zod'
import { getEnv } from '#app/server/env.server.ts'
import { type OidcProviderName } from './oidc-config.server.ts'

/**
 * Google and Apple as OpenID Connect providers: their settings from the environment, discovery from the issuer
 * (cached per process), ID-token verification against the provider's JWKS, and Apple's signed client secret.
 */

export type OidcProviderSettings = {
  name: OidcProviderName
  label: 'Google' | 'Apple'
  issuer: string
  clientId: string
  /** Google's is a fixed secret; Apple's is a short-lived ES256 JWT made for each token request. */
  clientSecret: () => Promise<string>
  callbackPath: '/auth_google' | '/auth_apple'
  scopes: string[]
  authorizationParams: Record<string, string>
  /** Whether the provider answers with a cross-site form POST (Apple), which brings only SameSite=None cookies. */
  formPostCallback: boolean
}

/** The provider's settings, or null when its environment variables are not all set. */
export function getProviderSettings(name: OidcProviderName): OidcProviderSettings | null {
  const env = getEnv()
  if (name === 'google') {
    const { GOOGLE_CLIENT_ID: clientId, GOOGLE_CLIENT_SECRET: secret } = env
    if (!clientId || !secret) return null
    return {
      name,
      label: 'Google',
      issuer: trimSlash(env.GOOGLE_ISSUER),
      clientId,
      clientSecret: async () => secret,
      callbackPath: '/auth_google',
      scopes: ['openid', 'email'],
      authorizationParams: {},
      formPostCallback: false,
    }
  }
  const { APPLE_CLIENT_ID: clientId, APPLE_TEAM_ID: teamId, APPLE_KEY_ID: keyId, APPLE_PRIVATE_KEY: privateKey } = env
  if (!clientId || !teamId || !keyId || !privateKey) return null
  const issuer = trimSlash(env.APPLE_ISSUER)
  return {
    name,
    label: 'Apple',
    issuer,
    clientId,
    clientSecret: () => createAppleClientSecret({ clientId, teamId, keyId, privateKey, audience: issuer }),
    callbackPath: '/auth_apple',
    scopes: ['name', 'email'],
    authorizationParams: { response_mode: 'form_post' },
    formPostCallback: true,
  }
}

const trimSlash = (url: string) => url.replace(/\/+$/, '')

const MetadataSchema = z.object({
  issuer: z.string(),
  authorization_endpoint: z.url(),
  token_endpoint: z.url(),
  jwks_uri: z.url(),
  id_token_signing_alg_values_supported: z.array(z.string()).optional(),
})
export type ProviderMetadata = z.infer<typeof MetadataSchema>

const discovered = new Map<string, Promise<ProviderMetadata>>()

/** The issuer's /.well-known/openid-configuration, fetched once per process (a failure is retried next time). */
export function discoverProvider(issuer: string): Promise<ProviderMetadata> {
  let pending = discovered.get(issuer)
  if (!pending) {
    pending = fetchMetadata(issuer)
    pending.catch(() => discovered.delete(issuer))
    discovered.set(issuer, pending)
  }
  return pending
}

async function fetchMetadata(issuer: string): Promise<ProviderMetadata> {
  const response = await fetch(`${issuer}/.well-known/openid-configuration`, {
    headers: { Accept: 'application/json' },
    signal: AbortSignal.timeout(10_000),
  })
  if (!response.ok) throw new Error(`OpenID discovery at ${issuer} answered ${response.status}`)
  const metadata = MetadataSchema.parse(await response.json())
  // OpenID Connect Discovery 1.0, section 4.3: the document must name the issuer it was fetched from.
  if (trimSlash(metadata.issuer) !== issuer)
    throw new Error(`OpenID discovery at ${issuer} names issuer ${metadata.issuer}`)
  return metadata
}

const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>()

function getKeySet(jwksUri: string) {
  let keySet = keySets.get(jwksUri)
  if (!keySet) {
    keySet = createRemoteJWKSet(new URL(jwksUri))
    keySets.set(jwksUri, keySet)
  }
  return keySet
}

const IdTokenClaimsSchema = z.object({
  sub: z.string().min(1).max(255),
  email: z.string().optional(),
  // Google sends a boolean, Apple the string "true" or "false".
  email_verified: z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')]).optional(),
})
export type IdTokenClaims = z.infer<typeof IdTokenClaimsSchema>

/** Verifies an ID token's signature (provider's JWKS), issuer, audience, expiry and nonce; returns its claims. */
export async function verifyIdToken(
  idToken: string,
  { settings, metadata, nonce }: { settings: OidcProviderSettings; metadata: ProviderMetadata; nonce: string },
): Promise<IdTokenClaims> {
  const { payload } = await jwtVerify(idToken, getKeySet(metadata.jwks_uri), {
    // Google also signs tokens with the issuer written without its scheme.
    issuer:
      metadata.issuer === 'https://accounts.google.com' ? [metadata.issuer, 'accounts.google.com'] : metadata.issuer,
    audience: settings.clientId,
    algorithms: metadata.id_token_signing_alg_values_supported?.filter((alg) => alg !== 'none') ?? ['RS256'],
    requiredClaims: ['sub', 'exp', 'iat'],
    clockTolerance: 60,
  })
  if (typeof payload.nonce !== 'string' || payload.nonce !== nonce) throw new Error('ID token nonce does not match')
  return IdTokenClaimsSchema.parse(payload)
}

/** Apple's client secret: an ES256 JWT signed with the team's private key, valid for five minutes. */
export async function createAppleClientSecret(input: {
  clientId: string
  teamId: string
  keyId: string
  privateKey: string
  audience: string
}): Promise<string> {
  // Environment files often hold the PEM on one line with literal "\n" between its lines.
  const key = await importPKCS8(input.privateKey.replace(/\\n/g, '\n'), 'ES256')
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: input.keyId })
    .setIssuer(input.teamId)
    .setSubject(input.clientId)
    .setAudience(input.audience)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(key)
}
