import { describe, expect, test } from 'vitest'
import { oidcBrowserCookie } from './oidc-browser-cookie.server.ts'

const attributes = async (cookie: ReturnType<typeof oidcBrowserCookie>) =>
  (await cookie.serialize('browser-id')).split(/;\s*/).map((part) => part.toLowerCase())

describe('the cookie that binds a social sign-in to its browser', () => {
  test("on https, Apple's cross-site form POST gets a __Host- cookie with SameSite=None and Secure", async () => {
    const cookie = oidcBrowserCookie({ appUrl: 'https://stampwise.example', crossSitePost: true })
    expect(cookie.name).toBe('__Host-oidc_browser_post')
    const parts = await attributes(cookie)
    expect(parts).toEqual(expect.arrayContaining(['samesite=none', 'secure', 'httponly', 'path=/', 'max-age=600']))
    expect(parts.some((part) => part.startsWith('domain='))).toBe(false)
  })

  test("Google's top-level GET callback keeps a SameSite=Lax cookie, Secure on https", async () => {
    const parts = await attributes(oidcBrowserCookie({ appUrl: 'https://stampwise.example', crossSitePost: false }))
    expect(parts).toEqual(expect.arrayContaining(['samesite=lax', 'secure', 'httponly']))
  })

  test('on plain http, where browsers drop SameSite=None without Secure, both use the Lax cookie', async () => {
    for (const crossSitePost of [true, false]) {
      const cookie = oidcBrowserCookie({ appUrl: 'http://localhost:3000', crossSitePost })
      expect(cookie.name).toBe('__oidc_browser')
      const parts = await attributes(cookie)
      expect(parts).toContain('samesite=lax')
      expect(parts).not.toContain('secure')
    }
  })
})
