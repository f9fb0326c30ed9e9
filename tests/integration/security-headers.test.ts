import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createOwner } from '#tests/support/account-owner.ts'
import { postJson, STRONG_PASSWORD } from '#tests/support/auth-api.ts'
import { startTestServer } from '#tests/support/test-server.ts'

/*
 * Security headers (issue #8, docs/security.md): a Content-Security-Policy whose scripts are 'self' and the
 * request's nonce only (no 'unsafe-inline', no eval), every inline script of a page carrying that nonce,
 * frame-ancestors 'none' (and X-Frame-Options DENY), nosniff, same-origin referrers, no X-Powered-By; HSTS only
 * when APP_URL is https (on a private http:// address it would lock browsers out). The session cookie's Secure flag
 * follows the APP_URL the Remix build itself reads (app/services/auth/session.server.ts), which one process cannot
 * change.
 */

let http: Awaited<ReturnType<typeof startTestServer>>
let https: Awaited<ReturnType<typeof startTestServer>>

beforeAll(async () => {
  http = await startTestServer()
  https = await startTestServer({ env: { APP_URL: 'https://stampwise.example' } })
})

afterAll(async () => {
  await http?.close()
  await https?.close()
})

/** The CSP as a map of directive → sources. */
function policy(response: Response) {
  const header = response.headers.get('content-security-policy')
  expect(header, 'a Content-Security-Policy header').toBeTruthy()
  return new Map(
    header!
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((words) => words[0])
      .map(([name, ...sources]) => [name!, sources]),
  )
}

const addresses: [string, string][] = [
  ['a public page', '/'],
  ['the sign-in page', '/login'],
  ['a page that does not exist', '/no-such-page'],
  ['a JSON call', '/api/auth/me'],
  ['a static file', '/favicon.svg'],
]

describe.each(addresses)('%s', (_name, path) => {
  test('carries the policy and the hardening headers', async () => {
    const response = await http.fetch(path)
    await response.arrayBuffer()
    const csp = policy(response)
    expect(csp.get('default-src')).toEqual(["'self'"])
    const scripts = csp.get('script-src')!
    expect(scripts).toContain("'self'")
    expect(scripts.filter((source) => source.startsWith("'nonce-"))).toHaveLength(1)
    expect(scripts).not.toContain("'unsafe-inline'")
    expect(scripts).not.toContain("'unsafe-eval'")
    expect(
      scripts.filter((source) => !["'self'", "'wasm-unsafe-eval'"].includes(source) && !source.startsWith("'nonce-")),
    ).toEqual([])
    expect(csp.get('frame-ancestors')).toEqual(["'none'"])
    expect(csp.get('object-src')).toEqual(["'none'"])
    expect(csp.get('base-uri')).toEqual(["'self'"])
    expect(csp.get('form-action')).toEqual(["'self'"])
    expect(response.headers.get('x-frame-options')).toBe('DENY')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(response.headers.get('referrer-policy')).toBe('same-origin')
    expect(response.headers.get('x-powered-by')).toBeNull()
    expect(response.headers.get('strict-transport-security')).toBeNull()
  })
})

test('every script of a page carries the nonce of its own answer, and the nonce changes with every answer', async () => {
  const nonces = new Set<string>()
  for (const path of ['/', '/login', '/signup', '/no-such-page']) {
    const response = await http.fetch(path)
    const html = await response.text()
    const nonce = policy(response)
      .get('script-src')!
      .find((source) => source.startsWith("'nonce-"))!
      .slice(7, -1)
    nonces.add(nonce)
    const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((match) => match[1]!)
    expect(scripts.length, path).toBeGreaterThan(0)
    for (const attributes of scripts) expect(attributes, `${path}: <script${attributes}>`).toContain(`nonce="${nonce}"`)
    // No inline event handlers, which no nonce can allow.
    expect(html, path).not.toMatch(/\son(click|load|error|submit|change)=/i)
  }
  expect(nonces.size).toBe(4)
})

test('with an https APP_URL: HSTS for two years with subdomains, and upgrade-insecure-requests', async () => {
  const response = await https.fetch('/')
  await response.arrayBuffer()
  expect(response.headers.get('strict-transport-security')).toBe('max-age=63072000; includeSubDomains')
  expect(policy(response).has('upgrade-insecure-requests')).toBe(true)
})

test('over http: the session cookie is HttpOnly and SameSite=Lax, without Secure (it would never be sent back)', async () => {
  const owner = await createOwner()
  const login = await postJson(http, '/api/auth/login', { email: owner.email, password: STRONG_PASSWORD })
  const cookie = login.headers.getSetCookie().find((line) => line.startsWith('__session='))!
  expect(cookie).toMatch(/;\s*HttpOnly/i)
  expect(cookie).toMatch(/;\s*SameSite=Lax/i)
  expect(cookie).not.toMatch(/;\s*Secure/i)
})

test('every answer carries a request id: the proxy’s when well-formed, else a new one (ASVS 7.2.1)', async () => {
  const given = await http.fetch('/', { headers: { 'X-Request-Id': 'proxy-id-1234' } })
  expect(given.headers.get('x-request-id')).toBe('proxy-id-1234')
  const forged = await http.fetch('/', { headers: { 'X-Request-Id': 'not a valid id: spaces and \\ slashes' } })
  expect(forged.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  const none = await http.fetch('/login')
  expect(none.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
})
