import { createCookie } from '@remix-run/node'

/**
 * The cookie that binds a social sign-in to the browser that started it: a random id whose hash is stored with the
 * sign-in's state, so a state and code obtained elsewhere cannot finish in this browser (login CSRF).
 *
 * Google answers with a top-level GET, which brings SameSite=Lax cookies. Apple answers with a cross-site form POST
 * (response_mode=form_post), which brings only SameSite=None cookies, and browsers accept those only with Secure.
 * So on https the form POST's cookie is `__Host-` (Secure, Path=/, no Domain) with SameSite=None. On plain http
 * (development and the tests) a SameSite=None cookie would be dropped, so the Lax cookie serves: Apple itself never
 * answers an http address, and a local stand-in must then post from the same site
 * (docs/decisions/026-sign-in-hardening.md).
 */
export const OIDC_BROWSER_COOKIE_MAX_AGE = 10 * 60

export function oidcBrowserCookie({ appUrl, crossSitePost }: { appUrl: string; crossSitePost: boolean }) {
  const https = appUrl.startsWith('https://')
  if (crossSitePost && https) {
    return createCookie('__Host-oidc_browser_post', {
      httpOnly: true,
      sameSite: 'none',
      secure: true,
      path: '/',
      maxAge: OIDC_BROWSER_COOKIE_MAX_AGE,
    })
  }
  return createCookie('__oidc_browser', {
    httpOnly: true,
    sameSite: 'lax',
    secure: https,
    path: '/',
    maxAge: OIDC_BROWSER_COOKIE_MAX_AGE,
  })
}
