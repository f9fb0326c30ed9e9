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
  return {
    baseUrl,
    fetch: (pathname: string, init?: RequestInit) => fetch(new URL(pathname, baseUrl), { redirect: 'manual', ...init }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

export type TestServer = Awaited<ReturnType<typeof startTestServer>>

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
    close: () => current().close(),
  }
}
