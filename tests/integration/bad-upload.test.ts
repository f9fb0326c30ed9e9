import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { LOGO_MESSAGES } from '#app/utils/logo-image.ts'
import { sql } from '#tests/support/auth-api.ts'
import { createAuthorizationRecords } from '#tests/support/authorization-fixture.ts'
import { countChanges, rowCounts } from '#tests/support/database-integrity.ts'
import {
  decompressionBombPng,
  noisyPng,
  oversizePng,
  truncatedPng,
  WRONG_TYPE_FILES,
} from '#tests/support/hostile-images.ts'
import { encodeBody, type FieldValue } from '#tests/support/hostile-input.ts'
import { unreadableReason } from '#tests/support/readable-answer.ts'
import { startTestServer } from '#tests/support/test-server.ts'
import { type RecordName, type Role } from './authorization-table.ts'

/**
 * Issue #8, "Bad input", uploads: every form that takes an image (the profile logo, the card designer's logo on
 * /main, the admin's card edit) refuses a wrong type, an oversize file, a truncated image and a decompression bomb
 * with 400 and the logo rules' own message (logo-image.ts), and stores nothing: the logo and every table's row
 * count stay as they were. A good image is stored, so the test can tell a refusal from an upload that never works.
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

const DESIGN = {
  businessName: 'Corner Coffee',
  title: 'Coffee card',
  stampsRequired: '8',
  backgroundColor: '#1f3a5f',
  textColor: '#ffffff',
  stampIcon: 'coffee',
}

type UploadForm = {
  name: string
  role: Role
  address: () => string
  fields: () => Record<string, string>
  storedLogo: () => Promise<string | null>
  /** The card forms read an empty file as "keep the logo": a browser sends one when the file input is left empty. */
  emptyFileKeepsLogo?: true
  /** The control's image, a different one for each form (both card forms store the same card's logo). */
  goodSide: number
}

const logoOfUser = async () =>
  (await sql<{ logo: string | null }>(`select md5(logo) as logo from users where id = :id`, { id: records.userA }))[0]!
    .logo
const logoOfCard = async () =>
  (await sql<{ logo: string | null }>(`select md5(logo) as logo from cards where id = :id`, { id: records.card }))[0]!
    .logo

const FORMS: UploadForm[] = [
  {
    name: 'profile logo',
    role: 'ownerA',
    address: () => '/account/profile',
    fields: () => ({ intent: 'logo' }),
    storedLogo: logoOfUser,
    goodSide: 300,
  },
  {
    name: 'card designer',
    role: 'ownerA',
    address: () => `/main?cardId=${records.card}`,
    fields: () => DESIGN,
    storedLogo: logoOfCard,
    emptyFileKeepsLogo: true,
    goodSide: 310,
  },
  {
    name: 'admin card edit',
    role: 'admin',
    address: () => `/admin/users/${records.userA}/cards/${records.card}/edit`,
    fields: () => ({ ...DESIGN, reward: 'A free coffee', terms: '' }),
    storedLogo: logoOfCard,
    emptyFileKeepsLogo: true,
    goodSide: 320,
  },
]

async function upload(form: UploadForm, file: Buffer, filename = 'logo.png', contentType = 'image/png') {
  const fields: [string, FieldValue][] = [
    ...Object.entries(form.fields()),
    ['logo', { filename, contentType, bytes: new Uint8Array(file) }],
  ]
  const { contentType: type, payload } = encodeBody({ encoding: 'multipart', fields })
  const response = await server.fetch(form.address(), {
    method: 'POST',
    headers: { Cookie: cookies[form.role]!, 'Content-Type': type! },
    body: payload,
  })
  return { response, text: await response.text() }
}

const BAD_FILES: [string, () => Promise<Buffer> | Buffer, string, number?][] = [
  ...Object.entries(WRONG_TYPE_FILES).map(([name, bytes]): [string, () => Buffer, string] => [
    `${name} named logo.png`,
    () => bytes,
    LOGO_MESSAGES.type,
  ]),
  ['a file just over 2 MB', () => oversizePng(), LOGO_MESSAGES.tooLarge],
  // Past 2 MB + 1 MB of other fields, the request guards answer 413 with the same rule (request-guards.server.ts).
  ['a 10 MB file', () => oversizePng(10 * 1024 * 1024), LOGO_MESSAGES.tooLarge, 413],
  ['a truncated PNG', truncatedPng, LOGO_MESSAGES.unreadable],
  ['a PNG declaring 50000 × 50000 pixels', () => decompressionBombPng(50_000), LOGO_MESSAGES.tooManyPixels],
]
const EMPTY_FILE: (typeof BAD_FILES)[number] = ['an empty file', () => Buffer.alloc(0), LOGO_MESSAGES.missing]

describe.each(FORMS)('uploads to the $name', (form) => {
  test.for(form.emptyFileKeepsLogo ? BAD_FILES : [...BAD_FILES, EMPTY_FILE])(
    '%s: 4xx with its message, nothing stored',
    async ([, makeFile, message, status = 400]) => {
      const logoBefore = await form.storedLogo()
      const countsBefore = await rowCounts()
      const { response, text } = await upload(form, await makeFile())
      expect(response.status).toBe(status)
      expect(unreadableReason(form.address(), response, text)).toBeNull()
      expect(text).toContain(message)
      expect(await form.storedLogo()).toBe(logoBefore)
      expect(countChanges(countsBefore, await rowCounts())).toEqual([])
    },
  )

  test('a good PNG is stored (the control)', async () => {
    const logoBefore = await form.storedLogo()
    const { response } = await upload(form, await noisyPng(form.goodSide))
    expect(response.status).toBe(302)
    expect(await form.storedLogo()).not.toBe(logoBefore)
  })
})
