import { type AddressInfo } from 'node:net'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { type ServerBuild } from '@remix-run/node'
import { afterAll, beforeAll } from 'vitest'
import { getEnv, type Env } from '#app/server/env.server.ts'
import { createApp } from '../../server.ts'

/**
 * The real Express app around the built Remix app, on a free loopback port, for HTTP-level tests.
 * `env` overrides what server.ts reads (TRUST_PROXY, say); the Remix build still reads getEnv().
 * `host`: another address of this machine to listen on (a client reaching it is not on loopback).
 */
export async function startTestServer({ env, host = '127.0.0.1' }: { env?: Partial<Env>; host?: string } = {}) {
  const build = (await import(pathToFileURL(path.resolve('build/server/index.js')).href)) as ServerBuild
  const app = createApp({ build, env: { ...getEnv(), ...env } })
  const server = app.listen(0, host)
  await new Promise<void>((resolve) => server.once('listening', () => resolve()))
  const { port } = server.address() as AddressInfo
  const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  const send = (pathname: string, init?: RequestInit) =>
    fetch(new URL(pathname, baseUrl), { redirect: 'manual', ...init })
  return {
    baseUrl,
    fetch: send,
    /** GET as a browser would, signed in when given the session cookie. */
    get: (pathname: string, cookie?: string) => send(pathname, { headers: cookieHeader(cookie) }),
    /** POST a form as a browser would (url-encoded, or multipart for a FormData), signed in when given the cookie. */
    post: (pathname: string, form: Form = {}, cookie?: string) =>
      send(pathname, { method: 'POST', headers: cookieHeader(cookie), body: formBody(form) }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

export type TestServer = Awaited<ReturnType<typeof startTestServer>>

/** A form's fields: a list sends the name once per value, as a form's repeated inputs (checkboxes) do. */
export type Form = Record<string, string | string[]> | URLSearchParams | FormData

const cookieHeader = (cookie?: string): Record<string, string> => (cookie ? { Cookie: cookie } : {})

// fetch sets the Content-Type for these bodies (url-encoded; multipart with its boundary).
function formBody(form: Form): URLSearchParams | FormData {
  if (form instanceof URLSearchParams || form instanceof FormData) return form
  const body = new URLSearchParams()
  for (const [name, value] of Object.entries(form)) for (const one of [value].flat()) body.append(name, one)
  return body
}

/**
 * One test server for the calling file: started in beforeAll, closed in afterAll. The handle reads the started
 * server, so a file writes `const server = useTestServer()` at the top and uses it in its tests and later hooks.
 */
export function useTestServer(options?: Parameters<typeof startTestServer>[0]): TestServer {
  let started: TestServer | undefined
  const current = () => {
    if (!started) throw new Error('The test server starts in beforeAll: use it inside a test or a later hook')
    return started
  }
  beforeAll(async () => {
    started = await startTestServer(options)
  })
  afterAll(async () => {
    await started?.close()
  })
  return {
    get baseUrl() {
      return current().baseUrl
    },
    fetch: (pathname, init) => current().fetch(pathname, init),
    get: (pathname, cookie) => current().get(pathname, cookie),
    post: (pathname, form, cookie) => current().post(pathname, form, cookie),
    close: () => current().close(),
  }
}
