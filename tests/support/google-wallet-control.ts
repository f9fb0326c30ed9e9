import fs from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'

/**
 * The Google Wallet fake of the browser tests (tests/support/google-wallet-fake-server.ts, started by
 * playwright.config.ts), read and steered through its control API from the test workers.
 */
function controlUrl(path: string) {
  const origin = process.env.E2E_GOOGLE_WALLET_URL
  if (!origin) throw new Error('E2E_GOOGLE_WALLET_URL is not set: run the browser tests through playwright.config.ts')
  return `${origin}${path}`
}

/** A GET of the control API (`/fake/violations`, `/fake/objects/{id}`…): its JSON, or undefined for a 404. */
export async function googleFake<T>(path: string): Promise<T | undefined> {
  const response = await fetch(controlUrl(path))
  if (response.status === 404) return undefined
  if (!response.ok) throw new Error(`GET ${path} of the Google Wallet fake: ${response.status}`)
  return (await response.json()) as T
}

type FakeRequest = { method: string; path: string; status: number }
const INSERT_PATH = '/walletobjects/v1/loyaltyObject'

async function postControl(path: string, body: unknown) {
  const response = await fetch(controlUrl(path), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`POST ${path} of the Google Wallet fake: ${response.status}`)
}

/**
 * Runs `work` while no other test (in any worker) makes an object insert at the fake. An injected failure matches
 * the method and path of a request, and an insert's path (`POST .../loyaltyObject`) does not name its object: a
 * failure meant for one test's pass would be taken by another test's insert made at the same moment. So every
 * browser test that may make the app insert an object does it inside this. A directory made exclusively is the
 * lock, beside the run's data folder (one per run: a killed run's lock cannot hold up the next).
 */
export async function withObjectInsertsAlone<T>(work: () => Promise<T>): Promise<T> {
  const dataDir = process.env.E2E_DATA_DIR
  if (!dataDir) throw new Error('E2E_DATA_DIR is not set: run the browser tests through playwright.config.ts')
  const lock = `${dataDir}.google-wallet-inserts.lock`
  const deadline = Date.now() + 20_000
  for (;;) {
    try {
      await fs.mkdir(lock)
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    if (Date.now() > deadline) throw new Error(`${lock} was held for 20 s`)
    await sleep(50)
  }
  try {
    return await work()
  } finally {
    await fs.rm(lock, { recursive: true, force: true })
  }
}

/**
 * Runs `work` (a page load, a click) with Google answering `status` to the next object insert: what a holder saving
 * a pass Google has no object for yet meets when Google is down. (The path also matches addMessage on an existing
 * object, which only a message to a card with saved passes makes: no browser test sends one while this runs.)
 */
export async function whileNextObjectInsertFails<T>(work: () => Promise<T>, status = 503): Promise<T> {
  return withObjectInsertsAlone(async () => {
    const before = (await googleFake<FakeRequest[]>('/fake/requests'))!.length
    await postControl('/fake/fail-next', { count: 1, failure: status, method: 'POST', pathIncludes: INSERT_PATH })
    const result = await work()
    // The control API cannot take a failure back: one left pending would fail the next test's insert instead, so
    // the test that left it is named here.
    const taken = (await googleFake<FakeRequest[]>('/fake/requests'))!
      .slice(before)
      .some((request) => request.method === 'POST' && request.path === INSERT_PATH && request.status === status)
    if (!taken)
      throw new Error(`no object insert took the injected ${status}: it stays pending at the fake for another test`)
    return result
  })
}
