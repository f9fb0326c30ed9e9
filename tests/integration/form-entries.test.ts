import { beforeAll, describe, expect, test } from 'vitest'
import { FORM_ENTRIES_MAX, FORM_ENTRY_MESSAGES } from '#app/server/form-entries.server.ts'
import { signedInOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'
import { buildAddresses } from '#tests/support/authorization-fixture.ts'
import { createStaffMember } from '#tests/support/staff-member.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/**
 * Issue 30, item 11 (high): a form repeating one name (`a&a&…`, far under the 1 MB limit) made the form parse
 * quadratic: 30,000 repeats (90 KB) to POST /login took 16.6 s with /healthz blocked, 500,000 (1 MB) froze the
 * process for minutes, anonymously, on every form action. Now every form action refuses such a form with 400 and a
 * message before parsing it, within a second, and the server answers others meanwhile (docs/product/hardening.md, "Form
 * entries").
 */
const server = useTestServer()

/** Every address of the build with an action, its parameters filled (the guard runs before any route). */
let actions: string[] = []
beforeAll(async () => {
  const addresses = await buildAddresses()
  actions = [...addresses]
    .filter(([, { hasAction }]) => hasAction)
    .map(([address]) =>
      address.replace(/:[A-Za-z]+/g, '00000000-0000-4000-8000-000000000000').replace(/\*$/, 'somewhere'),
    )
})

/** Polls /healthz while `work` runs; the slowest answer it got, in milliseconds. */
async function slowestHealthzDuring(work: Promise<unknown>) {
  let done = false
  let slowest = 0
  let answered = 0
  const polling = (async () => {
    while (!done) {
      const started = Date.now()
      const response = await server.fetch('/healthz')
      expect(response.status).toBe(200)
      await response.text()
      slowest = Math.max(slowest, Date.now() - started)
      answered++
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  })()
  try {
    await work
  } finally {
    done = true
    await polling
  }
  expect(answered).toBeGreaterThan(0)
  return slowest
}

const distinct = (count: number) => Array.from({ length: count }, (_, index) => `f${index}=x`).join('&')
const urlencoded = (body: string) => ({ 'Content-Type': 'application/x-www-form-urlencoded', body })
/** A POST of that form, as fetch takes it. */
const postForm = (body: string) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  body,
})
const multipart = (parts: number, name: (index: number) => string) => {
  const boundary = 'stampwise-entries'
  const body =
    Array.from(
      { length: parts },
      (_, index) => `--${boundary}\r\nContent-Disposition: form-data; name="${name(index)}"\r\n\r\nx\r\n`,
    ).join('') + `--${boundary}--\r\n`
  return { 'Content-Type': `multipart/form-data; boundary=${boundary}`, body }
}

const ATTACKS = [
  ['30,000 repeats of one name (a&a&…, 60 KB)', urlencoded('a&'.repeat(30_000)), FORM_ENTRY_MESSAGES.repeated('a')],
  ['500,000 repeats of one name (1 MB)', urlencoded('a&'.repeat(500_000)), FORM_ENTRY_MESSAGES.repeated('a')],
  ['30,000 repeats of a=, 90 KB', urlencoded('a=&'.repeat(30_000)), FORM_ENTRY_MESSAGES.repeated('a')],
  ['30,000 distinct names', urlencoded(distinct(30_000)), FORM_ENTRY_MESSAGES.tooMany],
  ['one field sent twice', urlencoded('email=a%40b.c&email=b%40b.c'), FORM_ENTRY_MESSAGES.repeated('email')],
  // Whichever the scan meets first: the 501st part, or the second of one name.
  [
    '30,000 multipart parts of one name',
    multipart(30_000, () => 'a'),
    FORM_ENTRY_MESSAGES.repeated('a'),
    FORM_ENTRY_MESSAGES.tooMany,
  ],
  ['30,000 multipart parts of distinct names', multipart(30_000, (index) => `f${index}`), FORM_ENTRY_MESSAGES.tooMany],
] as const

describe('every form action refuses a form of too many entries or repeated names, within a second', () => {
  test('the build has form actions to try', () => {
    expect(actions).toContain('/login')
    expect(actions).toContain('/feedback')
    expect(actions.length).toBeGreaterThan(20)
  })

  test.for(ATTACKS)('%s', async ([, { 'Content-Type': contentType, body }, ...messages]) => {
    const slowestAnswer = { address: '', ms: 0 }
    const slowestHealthz = await slowestHealthzDuring(
      (async () => {
        for (const address of actions) {
          // The page's own form, and the same form sent with JavaScript (a Remix data request).
          for (const target of [address, `${address === '/' ? '/_root' : address}.data`]) {
            const started = Date.now()
            const response = await server.fetch(target, {
              method: 'POST',
              headers: { 'Content-Type': contentType },
              body,
            })
            const text = await response.text()
            const ms = Date.now() - started
            if (ms > slowestAnswer.ms) Object.assign(slowestAnswer, { address: target, ms })
            expect(response.status, `${target}: ${text.slice(0, 200)}`).toBe(400)
            // JSON for a data request or a JSON call (/api/…, the pass's push subscription), else a page.
            if (response.headers.get('Content-Type')?.startsWith('application/json'))
              expect(JSON.parse(text), target).toMatchObject({ status: 'error', message: expect.toBeOneOf(messages) })
            else
              expect(
                messages.some((message) => text.replaceAll('&#34;', '"').includes(message)),
                target,
              ).toBe(true)
          }
        }
      })(),
    )
    expect(slowestAnswer.ms, `the slowest answer, ${slowestAnswer.address}`).toBeLessThan(1_000)
    expect(slowestHealthz, '/healthz meanwhile').toBeLessThan(1_000)
  })

  test('a person without JavaScript gets a page that says what happened and leads back to the form', async () => {
    const response = await server.fetch('/login', postForm(distinct(30_000)))
    expect(response.status).toBe(400)
    expect(response.headers.get('Content-Type')).toMatch(/^text\/html/)
    const page = await response.text()
    expect(page).toContain('<h1>This form could not be sent</h1>')
    expect(page).toContain(`more than ${FORM_ENTRIES_MAX} fields`)
    expect(page).toContain('<a href="/login">Go back</a>')
  })

  test('a JSON call answers in its own shape', async () => {
    const response = await server.fetch('/api/auth/login', postForm(distinct(30_000)))
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({
      status: 'error',
      message: FORM_ENTRY_MESSAGES.tooMany,
      msg: FORM_ENTRY_MESSAGES.tooMany,
      errors: {},
    })
  })
})

describe('forms within the limits', () => {
  test(`a form of ${FORM_ENTRIES_MAX} distinct entries is read (the login form answers it)`, async () => {
    const fields = Array.from({ length: FORM_ENTRIES_MAX - 2 }, (_, index) => `extra${index}=x`).join('&')
    const response = await server.fetch(
      '/login',
      postForm(`email=nobody%40example.com&password=wrong-password&${fields}`),
    )
    expect(response.status).toBe(401)
  })

  test('the location form sends one staffIds per staff member, and they are all saved', async () => {
    const owner = await signedInOwner(server)
    const staff = [
      await createStaffMember(owner.id),
      await createStaffMember(owner.id),
      await createStaffMember(owner.id),
    ]
    const body = new URLSearchParams({ intent: 'add', name: 'Baixa', address: 'Rua Augusta 1, Lisboa' })
    for (const member of staff) body.append('staffIds', member.id)
    for (const target of ['/account/locations', '/account/locations.data']) {
      const response = await server.fetch(target, { method: 'POST', headers: { Cookie: owner.cookie }, body })
      expect(response.status, target).toBeLessThan(400)
      await response.text()
    }
    const rows = await sql<{ staff_id: string }>(
      `select staff_id from staff_locations sl join locations l on l.id = sl.location_id where l.owner_id = :ownerId`,
      { ownerId: owner.id },
    )
    expect(rows.map((row) => row.staff_id).sort()).toEqual([...staff, ...staff].map((member) => member.id).sort())
  })
})
