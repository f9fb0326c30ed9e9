import { redirect } from '@remix-run/node'
import { Authenticator } from 'remix-auth'
import { logger } from '#app/server/logger.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { landingAfterSignIn } from './guest.server.ts'
import { type OidcProviderName } from './oidc-config.server.ts'
import { discoverProvider, getProviderSettings } from './oidc-provider.server.ts'
import { OidcSignInError, OidcStrategy } from './oidc-strategy.server.ts'
import { consumeRateLimit, RATE_LIMITS, RateLimitedError } from './rate-limit.server.ts'
import { clientAddress, safeRedirectPath, signIn } from './session.server.ts'
import { findOrCreateSocialAccount } from './social-account.server.ts'

/**
 * The four social sign-in addresses in one place: /login_google and /login_apple send the browser to the provider,
 * /auth_google and /auth_apple take its answer, sign in and land like a password login (the page asked for, else
 * /main for an owner with no card yet, else /account). Every failure lands on /login with a toast saying why.
 */

const LABELS: Record<OidcProviderName, string> = { google: 'Google', apple: 'Apple' }

/** The words for a person, not an operator (issue 30, item 3): the way is not there, and the one that is. */
export const unavailableMessage = (label: string) =>
  `Sign-in with ${label} is not available here yet: use your e-mail and password.`

/**
 * The sign-in's answer: a redirect (to the provider, to the landing page, or to /login with a toast), or the start
 * address's rate limit, for the route to answer 429 (a link followed has no form to show it on).
 */
export async function authenticateWithProvider(
  provider: OidcProviderName,
  request: Request,
): Promise<Response | RateLimitedError> {
  const label = LABELS[provider]
  const settings = getProviderSettings(provider)
  if (!settings) {
    return redirectWithToast('/login', {
      type: 'error',
      message: unavailableMessage(label),
    })
  }
  try {
    const starting = new URL(request.url).pathname !== settings.callbackPath
    if (starting) await consumeRateLimit(RATE_LIMITS.loginPerIp, clientAddress(request))
    const metadata = await discoverProvider(settings.issuer).catch((cause: unknown) => {
      throw new OidcSignInError(
        `Sign-in with ${label} is not available right now. Please try again later or use your e-mail and password.`,
        'discovery failed',
        { cause },
      )
    })
    const strategy = new OidcStrategy(settings, metadata, async ({ claims, redirectTo }) => ({
      ...(await findOrCreateSocialAccount(settings, claims)),
      redirectTo,
    }))
    const { userId, created, redirectTo } = await new Authenticator<{
      userId: string
      created: boolean
      redirectTo: string | null
    }>()
      .use(strategy)
      .authenticate(provider, request)
    logger.info({ provider, userId, created }, 'signed in with an OpenID provider')
    const to = await landingAfterSignIn(userId, safeRedirectPath(redirectTo, ''))
    return redirect(to, { headers: { 'Set-Cookie': await signIn(request, userId) } })
  } catch (error) {
    if (error instanceof Response) return error // the redirect to the provider
    if (error instanceof RateLimitedError) return error
    if (!(error instanceof OidcSignInError)) throw error
    logger.warn({ provider, reason: error.reason, err: error.details.cause }, 'sign-in with an OpenID provider refused')
    const { redirectTo } = error.details
    const login = redirectTo ? `/login?${new URLSearchParams({ redirectTo })}` : '/login'
    return redirectWithToast(login, { type: 'error', message: error.userMessage, durationMs: 8_000 })
  }
}
