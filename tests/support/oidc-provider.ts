import crypto from 'node:crypto'
import http from 'node:http'
import { type AddressInfo } from 'node:net'
import express from 'express'
import { OAuth2Issuer, OAuth2Service } from 'oauth2-mock-server'

/**
 * A local OpenID Connect provider standing in for Google or Apple (oauth2-mock-server): discovery, JWKS,
 * /authorize (PKCE, nonce) and /token on 127.0.0.1. Its ID tokens carry the identity the test chooses.
 *
 * `interactive` adds what a browser sees at a real provider: an account page that asks for the e-mail to sign in
 * as, and, for response_mode=form_post, a page whose Continue button posts code and state back to the app.
 */

export type MockIdentity = { sub: string; email?: string; email_verified?: boolean | 'true' | 'false' }
type Claims = Record<string, unknown>
type TokenResponse = { body: Record<string, unknown>; statusCode: number }

export async function startOidcProvider({
  port = 0,
  interactive = false,
  emailVerifiedAs = 'boolean',
  hostName = '127.0.0.1',
}: {
  port?: number
  interactive?: boolean
  emailVerifiedAs?: 'boolean' | 'string'
  /** The name in the issuer's address (it always listens on 127.0.0.1): `localhost` makes it the app's own site. */
  hostName?: '127.0.0.1' | 'localhost'
} = {}) {
  const issuer = new OAuth2Issuer()
  await issuer.keys.generate('RS256')
  const service = new OAuth2Service(issuer)

  let identity: MockIdentity = { sub: 'johndoe' }
  const identitiesByCode = new Map<string, MockIdentity>()
  let idTokenChange: ((claims: Claims) => void) | undefined
  let responseChange: ((response: TokenResponse) => void) | undefined
  const tokenRequests: Record<string, string>[] = []

  service.on('beforeTokenSigning', (token: { payload: Claims }, req: { body: Record<string, string> }) => {
    // Of the two tokens the mock signs per request, only the ID token carries an audience.
    if (!('aud' in token.payload)) return
    Object.assign(token.payload, identitiesByCode.get(req.body.code ?? '') ?? identity)
    idTokenChange?.(token.payload)
    idTokenChange = undefined
  })
  service.on('beforeResponse', (response: TokenResponse, req: { body: Record<string, string> }) => {
    tokenRequests.push({ ...req.body })
    responseChange?.(response)
    responseChange = undefined
  })
  service.on('beforeAuthorizeRedirect', ({ url }: { url: URL }, req: express.Request) => {
    const email = req.query.mock_email
    if (!interactive || typeof email !== 'string') return
    const code = url.searchParams.get('code')
    const verified = emailVerifiedAs === 'string' ? ('true' as const) : true
    if (code) identitiesByCode.set(code, { sub: `sub-${email}`, email, email_verified: verified })
    if (req.query.response_mode === 'form_post') {
      const fields = new URLSearchParams(url.searchParams)
      fields.set('target', `${url.origin}${url.pathname}`)
      url.href = `${issuer.url}/form_post?${fields}`
    }
  })

  const app = express()
  if (interactive) {
    app.get('/authorize', (req, res, next) => {
      if (typeof req.query.mock_email === 'string') return next()
      const hidden = Object.entries(req.query)
        .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
        .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
      res.type('html').send(
        page(
          'Choose an account',
          `
        <form method="get" action="/authorize">${hidden.join('')}
          <label>E-mail <input type="email" name="mock_email" required></label>
          <button type="submit">Continue</button>
        </form>`,
        ),
      )
    })
    app.get('/form_post', (req, res) => {
      const { target, ...fields } = req.query as Record<string, string>
      const user = JSON.stringify({ name: { firstName: 'Test', lastName: 'Owner' } })
      const hidden = Object.entries({ ...fields, user }).map(
        ([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`,
      )
      res.type('html').send(
        page(
          'Continue',
          `
        <form method="post" action="${escapeHtml(target ?? '')}">${hidden.join('')}
          <button type="submit">Continue</button>
        </form>`,
        ),
      )
    })
  }
  app.use(service.requestHandler)

  const server = http.createServer(app)
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  issuer.url = `http://${hostName}:${(server.address() as AddressInfo).port}`

  return {
    issuer: issuer.url,
    /** Who the next ID tokens are about (interactive sign-ins use the e-mail typed on the account page). */
    setIdentity(next: MockIdentity) {
      identity = next
    },
    /** Changes the claims of the next ID token only (wrong nonce, audience, expiry...). */
    changeNextIdToken(change: (claims: Claims) => void) {
      idTokenChange = change
    },
    /** Changes the next token endpoint answer only (an error, or an ID token signed with another key). */
    changeNextTokenResponse(change: (response: TokenResponse) => void) {
      responseChange = change
    },
    tokenRequests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

export type OidcProvider = Awaited<ReturnType<typeof startOidcProvider>>

let forgerKey: crypto.KeyObject | undefined

/** The same header and claims, signed (RS256) by a key the provider never published. */
export function signWithAnotherKey(jwt: string): string {
  forgerKey ??= crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey
  const [header, payload] = jwt.split('.')
  const signature = crypto.sign('sha256', Buffer.from(`${header}.${payload}`), forgerKey)
  return `${header}.${payload}.${signature.toString('base64url')}`
}

function page(title: string, body: string) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`
}

function escapeHtml(value: string) {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}
