import { beforeAll, expect, test } from 'vitest'
import { resetEnvForTests } from '#app/server/env.server.ts'
import { makeAppleCerts } from '#tests/support/apple-certs.ts'
import { createUser, logIn, sql } from '#tests/support/auth-api.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/**
 * Apple Wallet on with an APP_URL that is http on another computer's name: Wallet on a phone talks only to https, so
 * /admin says so plainly (the log says it at start: app/server/apple-wallet-config.server.test.ts covers the check).
 * Its own file: the app reads APP_URL once.
 */
const certs = makeAppleCerts()
Object.assign(process.env, certs.env(), { APP_URL: 'http://stamps.example.com' })
resetEnvForTests()

const server = useTestServer()
let cookie: string
beforeAll(async () => {
  const admin = await createUser()
  await sql(`update users set role = 'admin' where id = :id`, { id: admin.id })
  cookie = await logIn(server, admin.email)
})

test('/admin warns that passes can be added but never update until APP_URL is https', async () => {
  const response = await server.fetch('/admin', { headers: { cookie } })
  expect(response.status).toBe(200)
  const html = (await response.text()).replaceAll('<!-- -->', '')
  expect(html).toContain('<strong>Apple Wallet: </strong>on')
  expect(html).toContain(
    '<p class="field-error">Apple Wallet: APP_URL (http://stamps.example.com) is not https, and Wallet on a phone ' +
      'talks only to an https address: passes can be added but never update. Serve Stampwise over https and set ' +
      'APP_URL to that address.</p>',
  )
})
