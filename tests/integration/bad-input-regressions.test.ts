import { afterAll, beforeAll, expect, test } from 'vitest'
import { UNREADABLE_SUBMISSION } from '#app/components/forms.tsx'
import { FORM_ENTRY_MESSAGES } from '#app/server/form-entries.server.ts'
import { createAuthorizationRecords } from '#tests/support/authorization-fixture.ts'
import { encodeBody, type HostileBody } from '#tests/support/hostile-input.ts'
import { unreadableReason } from '#tests/support/readable-answer.ts'
import { startTestServer } from '#tests/support/test-server.ts'
import { type RecordName, type Role } from './authorization-table.ts'

/**
 * The bad-input fuzz's findings (docs/decisions/022-bad-input.md), each pinned by one request: what used to answer
 * 500, or 400 with a page that showed no message, now answers 400 with the message shown.
 */
let server: Awaited<ReturnType<typeof startTestServer>>
let records: Record<RecordName, string>
let cookies: Partial<Record<Role, string>>

beforeAll(async () => {
  server = await startTestServer()
  ;({ records, cookies } = await createAuthorizationRecords(server))
})

afterAll(async () => {
  await server?.close()
})

/** Whitespace-insensitive, HTML-escaped: how a message appears in the page. */
const escapeHtml = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/'/g, '&#x27;')
    .replace(/"/g, '&quot;')

async function post(address: () => string, body: HostileBody) {
  const { contentType, payload } = encodeBody(body)
  // Owner A for the account's pages, the admin for /admin; the sign-in and contact forms are a guest's.
  const cookie = address().startsWith('/account')
    ? cookies.ownerA
    : address().startsWith('/admin')
      ? cookies.admin
      : undefined
  const headers: Record<string, string> = cookie ? { Cookie: cookie } : {}
  if (contentType) headers['Content-Type'] = contentType
  const response = await server.fetch(address(), { method: 'POST', headers, body: payload })
  const text = await response.text()
  return { status: response.status, text, unreadable: unreadableReason(address(), response, text) }
}

const form = (fields: [string, string][]): HostileBody => ({ encoding: 'urlencoded', fields })

const CASES: [name: string, address: () => string, body: HostileBody, message: string | null][] = [
  [
    'the push composer, a title sent twice (was 500)',
    () => `/account/${records.card}/push_notification/create`,
    form([
      ['title', 'Happy hour'],
      ['title', 'again'],
      ['body', 'Two for one'],
    ]),
    // Now refused before the parse (docs/decisions/051-form-entries-and-discard-limit.md).
    FORM_ENTRY_MESSAGES.repeated('title'),
  ],
  [
    'the template composer, a "save as a template" value that is no checkbox (no message)',
    () => `/account/${records.card}/push_notification/template/${records.template}/create`,
    form([
      ['title', 'Happy hour'],
      ['body', 'Two for one'],
      ['saveAsTemplate', 'yes please'],
    ]),
    null,
  ],
  [
    'the scan page, an intent sent twice (no message)',
    () => `/account/${records.card}/scan`,
    form([
      ['intent', 'stamp'],
      ['intent', 'undo'],
      ['code', 'AUTHZ234'],
    ]),
    FORM_ENTRY_MESSAGES.repeated('intent'),
  ],
  [
    'the scan page, Undo for a pass it does not show (no message)',
    () => `/account/${records.card}/scan`,
    form([
      ['intent', 'undo'],
      ['passId', 'nope'],
    ]),
    'Pass not found',
  ],
  [
    'the card page, an unknown intent (no message)',
    () => `/account/${records.card}`,
    form([['intent', 'explode']]),
    UNREADABLE_SUBMISSION,
  ],
  [
    'notifications, an unknown intent (no message)',
    () => '/account/notifications',
    form([['intent', 'explode']]),
    UNREADABLE_SUBMISSION,
  ],
  [
    'tariffs, a plan that does not exist (no message)',
    () => '/account/tariffs',
    form([
      ['tier', '99'],
      ['periodMonths', '1'],
    ]),
    'Choose a plan',
  ],
  [
    'plan, a cancellation without its box on a trial (no message)',
    () => '/account/plan',
    form([['intent', 'cancel']]),
    null,
  ],
  [
    'profile, a JSON body (no message)',
    () => '/account/profile',
    { encoding: 'json', value: { intent: 'email' } },
    UNREADABLE_SUBMISSION,
  ],
  [
    'a new premade account, its stamp icon sent twice (was 500: a list as the select’s default)',
    () => '/admin/users/new',
    form([
      ['email', 'premade-twice@example.com'],
      ['businessName', 'Corner Coffee'],
      ['title', 'Coffee card'],
      ['stampsRequired', '8'],
      ['backgroundColor', '#1f3a5f'],
      ['textColor', '#ffffff'],
      ['stampIcon', 'coffee'],
      ['stampIcon', 'star'],
      ['reward', 'A free coffee'],
    ]),
    null,
  ],
  [
    'the sign-in form, a JSON body (was 500)',
    () => '/login',
    { encoding: 'json', value: { email: 'ann@example.com' } },
    'Invalid email format',
  ],
  [
    'the contact form, no Content-Type (was 500)',
    () => '/contacts',
    { encoding: 'raw', contentType: null, text: 'message=hi' },
    'Enter your name',
  ],
]

test.for(CASES)('%s: 400 with a message', async ([, address, body, message]) => {
  const answer = await post(address, body)
  expect(answer.status).toBe(400)
  expect(answer.unreadable).toBeNull()
  if (message) expect(answer.text).toContain(escapeHtml(message))
})
