import { startOidcProvider } from './oidc-provider.ts'

/**
 * A local OpenID provider as its own process, for Playwright: `google <port>` or `apple <port>`. The browser meets
 * an account page (type the e-mail to sign in as, then Continue); for Apple a second page posts the answer back to
 * the app as Apple does (response_mode=form_post). Apple's e-mail_verified arrives as the string "true".
 * Apple's stand-in is named `localhost`, the app's own site: on plain http the browser-binding cookie can only be
 * SameSite=Lax, which a form POST brings back from the same site only (docs/decisions/026-sign-in-hardening.md).
 */
const [provider, port] = process.argv.slice(2)
if ((provider !== 'google' && provider !== 'apple') || !Number(port)) {
  throw new Error('usage: oidc-provider-server.ts google|apple <port>')
}
const server = await startOidcProvider({
  port: Number(port),
  interactive: true,
  emailVerifiedAs: provider === 'apple' ? 'string' : 'boolean',
  hostName: provider === 'apple' ? 'localhost' : '127.0.0.1',
})

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void server.stop().then(() => process.exit(0)))
}
