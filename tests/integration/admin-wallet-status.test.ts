import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { resetEnvForTests } from '#app/server/env.server.ts'
import { createUser, logIn, sql } from '#tests/support/auth-api.ts'
import { makeGoogleServiceAccount, TEST_GOOGLE_CLIENT_EMAIL } from '#tests/support/google-service-account.ts'
import { pageText } from '#tests/support/page-text.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/**
 * /admin's "Wallets" box with Google Wallet on and Apple Wallet off: the service account that talks to Google, the
 * settings that would turn Apple Wallet on, and the line saying what is wrong once the key file named by
 * GOOGLE_WALLET_SERVICE_ACCOUNT no longer holds a service account key (the box reads it again at each visit).
 * Apple Wallet on is covered by apple-wallet.test.ts.
 */
const account = makeGoogleServiceAccount()
const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stampwise-admin-google-'))
const keyFile = path.join(keyDir, 'stampwise-wallet.json')
// Nothing on this page talks to Google: the token address is never asked.
fs.writeFileSync(keyFile, account.json('http://127.0.0.1:9/token'))
Object.assign(process.env, { GOOGLE_WALLET_ISSUER_ID: account.issuerId, GOOGLE_WALLET_SERVICE_ACCOUNT: keyFile })
resetEnvForTests()

const server = useTestServer()
let cookie: string
beforeAll(async () => {
  const admin = await createUser()
  await sql(`update users set role = 'admin' where id = :id`, { id: admin.id })
  cookie = await logIn(server, admin.email)
})
afterAll(() => {
  delete process.env.GOOGLE_WALLET_ISSUER_ID
  delete process.env.GOOGLE_WALLET_SERVICE_ACCOUNT
  resetEnvForTests()
  fs.rmSync(keyDir, { recursive: true, force: true })
})

/** The "Wallets" box of /admin, as its text reads. */
async function walletsBox() {
  const response = await server.get('/admin', cookie)
  const html = await pageText(response)
  expect(response.status).toBe(200)
  const box = /<section aria-labelledby="admin-wallets-title"[^>]*>([\s\S]*?)<\/section>/.exec(html)?.[1]
  expect(box, 'the Wallets box').toBeDefined()
  return box!
}

/** The markup of a list of setting names, as the box writes it. */
const settingNames = (names: string[]) =>
  names.map((name, index) => `<span>${index ? ', ' : ''}<code>${name}</code></span>`).join('')

test('Google Wallet is on with its service account; Apple Wallet is off with the settings that would turn it on', async () => {
  const box = await walletsBox()
  expect(box).toContain(`<strong>Google Wallet: </strong>on · service account ${TEST_GOOGLE_CLIENT_EMAIL}</p>`)
  expect(box).toContain('<strong>Apple Wallet: </strong>off</p>')
  const appleSettings = ['APPLE_PASS_TYPE_ID', 'APPLE_TEAM_ID', 'APPLE_PASS_CERT', 'APPLE_PASS_KEY', 'APPLE_WWDR_CERT']
  expect(box).toContain(`<p class="field-hint">To turn it on, set: ${settingNames(appleSettings)}</p>`)
  expect(box).not.toContain('GOOGLE_WALLET_')
  expect(box).not.toContain('field-error')
})

test('a key file that became something else than a service account key shows what is wrong, and no account', async () => {
  fs.writeFileSync(
    keyFile,
    JSON.stringify({ type: 'authorized_user', client_id: 'x.apps.googleusercontent.com', refresh_token: '1//x' }),
  )
  try {
    const box = await walletsBox()
    expect(box).toContain('<strong>Google Wallet: </strong>on</p>')
    expect(box).toContain(
      '<p class="field-error">GOOGLE_WALLET_SERVICE_ACCOUNT is not a service account key ' +
        '(its type is "authorized_user", not "service_account")</p>',
    )
    expect(box).not.toContain('service account stampwise-wallet')

    fs.rmSync(keyFile)
    expect(await walletsBox()).toContain(
      `<p class="field-error">GOOGLE_WALLET_SERVICE_ACCOUNT is neither JSON text nor a readable file (${keyFile}: ENOENT)</p>`,
    )
  } finally {
    fs.writeFileSync(keyFile, account.json('http://127.0.0.1:9/token'))
  }
  expect(await walletsBox()).toContain(`service account ${TEST_GOOGLE_CLIENT_EMAIL}</p>`)
})
