import crypto from 'node:crypto'
import { redirect } from '@remix-run/node'
import { OAuth2Tokens } from 'arctic'
import { OAuth2Strategy } from 'remix-auth-oauth2'
import { getEnv } from '#app/server/env.server.ts'
import { readFormData } from '#app/server/form-data.server.ts'
import { consumeOAuthState, saveOAuthState } from '#models/oauth-state.server.ts'
import { hashToken } from '#models/session.server.ts'
import { oidcBrowserCookie } from './oidc-browser-cookie.server.ts'
import {
  type IdTokenClaims,
  type OidcProviderSettings,
  type ProviderMetadata,
  verifyIdToken,
} from './oidc-provider.server.ts'
import { safeRedirectPath } from './session.server.ts'

/**
 * OpenID Connect sign-in on top of remix-auth-oauth2: authorization code flow with PKCE (S256), a state and a nonce.
 * The base strategy keeps its state in a cookie, which Apple's cross-site form POST never brings back, so this one
 * keeps state, verifier, nonce and the page to return to in the database (models/oauth-state), single use, for
 * 10 minutes. The state is also bound to the browser that started the sign-in (oidc-browser-cookie.server.ts, a
 * cookie Apple's form POST brings back too), so nobody can finish their own sign-in in someone else's browser.
 */

export type OidcVerifyParams = {
  request: Request
  tokens: OAuth2Tokens
  claims: IdTokenClaims
  redirectTo: string | null
}

/** A refused sign-in: the person sees `userMessage` on /login; `reason` and `details.cause` go to the log only. */
export class OidcSignInError extends Error {
  constructor(
    readonly userMessage: string,
    readonly reason: string,
    readonly details: { cause?: unknown; redirectTo?: string | null } = {},
  ) {
    super(reason)
  }
}

export class OidcStrategy<User> extends OAuth2Strategy<User> {
  override name: string
  private readonly redirectURI: string
  private readonly verifySignIn: (params: OidcVerifyParams) => Promise<User>
  private readonly browserCookie: ReturnType<typeof oidcBrowserCookie>

  constructor(
    private readonly settings: OidcProviderSettings,
    private readonly metadata: ProviderMetadata,
    verify: (params: OidcVerifyParams) => Promise<User>,
  ) {
    const redirectURI = `${getEnv().APP_URL}${settings.callbackPath}`
    super(
      {
        clientId: settings.clientId,
        // Sent by our own token request below (client_secret_post), so the base client never sends it.
        clientSecret: null,
        authorizationEndpoint: metadata.authorization_endpoint,
        tokenEndpoint: metadata.token_endpoint,
        redirectURI,
        scopes: settings.scopes,
      },
      () => Promise.reject(new Error('OidcStrategy verifies through verifySignIn')),
    )
    this.name = settings.name
    this.redirectURI = redirectURI
    this.verifySignIn = verify
    this.browserCookie = oidcBrowserCookie({ appUrl: getEnv().APP_URL, crossSitePost: settings.formPostCallback })
  }

  /** On the start address: redirects to the provider. On the callback address: signs in or throws OidcSignInError. */
  override async authenticate(request: Request): Promise<User> {
    const url = new URL(request.url)
    if (url.pathname === this.settings.callbackPath) return this.finish(request)
    throw await this.start(request)
  }

  private async start(request: Request): Promise<Response> {
    const { state, codeVerifier, url } = this.createAuthorizationURL()
    const nonce = crypto.randomBytes(32).toString('base64url')
    url.searchParams.set('nonce', nonce)
    for (const [key, value] of Object.entries(this.settings.authorizationParams)) url.searchParams.set(key, value)

    const requested = new URL(request.url).searchParams.get('redirectTo')
    const redirectTo = requested && requested.length <= 2048 ? safeRedirectPath(requested, '') || null : null
    const existing: unknown = await this.browserCookie.parse(request.headers.get('Cookie'))
    const browserId =
      typeof existing === 'string' && existing.length >= 32 ? existing : crypto.randomBytes(32).toString('base64url')
    const headers = new Headers({ 'Set-Cookie': await this.browserCookie.serialize(browserId) })
    await saveOAuthState({
      state,
      provider: this.settings.name,
      codeVerifier,
      nonce,
      redirectTo,
      browserHash: hashToken(browserId),
    })
    return redirect(url.toString(), { headers })
  }

  private async finish(request: Request): Promise<User> {
    const params = await callbackParams(request)
    const { label } = this.settings
    const state = params.get('state')
    const error = params.get('error')
    if (!state) {
      if (error) throw new OidcSignInError(this.providerErrorMessage(error), `provider error ${error}`)
      throw new OidcSignInError(`This sign-in with ${label} is not valid. Please try again.`, 'callback without state')
    }
    const stored = await consumeOAuthState(state, this.settings.name)
    if (stored.status !== 'valid') {
      if (stored.status === 'expired') {
        throw new OidcSignInError(`Your sign-in with ${label} took too long. Please try again.`, 'state expired')
      }
      throw new OidcSignInError(
        `This sign-in with ${label} is no longer valid (it may have been used already). Please try again.`,
        'state unknown or already used',
      )
    }
    const { redirectTo } = stored
    // Checked before anything else the callback says: a state from another browser (a stranger's unused state and
    // code, say) is refused, and it was used up above, so it cannot be tried again anywhere.
    const browserId: unknown = await this.browserCookie.parse(request.headers.get('Cookie'))
    if (!stored.browserHash || typeof browserId !== 'string' || hashToken(browserId) !== stored.browserHash) {
      throw new OidcSignInError(
        `This sign-in with ${label} was started in another browser. Please try again here.`,
        'state bound to another browser',
        { redirectTo },
      )
    }
    if (error) {
      const reason = `provider error ${error}: ${params.get('error_description') ?? ''}`
      throw new OidcSignInError(this.providerErrorMessage(error), reason, { redirectTo })
    }
    const code = params.get('code')
    if (!code)
      throw new OidcSignInError(`${label} did not complete the sign-in. Please try again.`, 'callback without code', {
        redirectTo,
      })

    let tokens: OAuth2Tokens
    let claims: IdTokenClaims
    try {
      tokens = await this.validateAuthorizationCode(code, stored.codeVerifier)
    } catch (cause) {
      throw new OidcSignInError(this.failedMessage, 'token exchange failed', { cause, redirectTo })
    }
    try {
      claims = await verifyIdToken(tokens.idToken(), {
        settings: this.settings,
        metadata: this.metadata,
        nonce: stored.nonce,
      })
    } catch (cause) {
      throw new OidcSignInError(this.failedMessage, 'ID token rejected', { cause, redirectTo })
    }
    return this.verifySignIn({ request, tokens, claims, redirectTo })
  }

  private providerErrorMessage(error: string) {
    const cancelled = error === 'access_denied' || error === 'user_cancelled_authorize'
    return cancelled ? `Sign-in with ${this.settings.label} was cancelled.` : this.failedMessage
  }

  private get failedMessage() {
    return `We couldn't sign you in with ${this.settings.label}. Please try again.`
  }

  /** The token request, with the client secret in the body (client_secret_post: Apple accepts nothing else). */
  protected override async validateAuthorizationCode(code: string, codeVerifier: string): Promise<OAuth2Tokens> {
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: this.redirectURI,
      code_verifier: codeVerifier,
      client_id: this.settings.clientId,
      client_secret: await this.settings.clientSecret(),
    })
    const response = await fetch(this.metadata.token_endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body,
      signal: AbortSignal.timeout(10_000),
    })
    const data: unknown = await response.json().catch(() => null)
    if (!response.ok || typeof data !== 'object' || data === null) {
      throw new Error(`token endpoint answered ${response.status}: ${JSON.stringify(data)?.slice(0, 300)}`)
    }
    return new OAuth2Tokens(data)
  }
}

/** The callback's parameters: the query string of a GET, or the form fields of Apple's form POST. */
async function callbackParams(request: Request): Promise<URLSearchParams> {
  if (request.method !== 'POST') return new URL(request.url).searchParams
  const form = await readFormData(request)
  const params = new URLSearchParams()
  for (const [key, value] of form) if (typeof value === 'string') params.set(key, value)
  return params
}
