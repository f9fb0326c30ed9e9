import { QueryTypes } from 'sequelize'
import { expect } from 'vitest'
import { getSequelize } from '#app/server/db.server.ts'
import { hashPassword } from '#app/services/auth/password.server.ts'
import { type TestServer } from './test-server.ts'

/**
 * Helpers for the /api/auth integration tests. They reach the test's database in SQL (the models belong to the
 * Remix build: importing them here would register them twice).
 */

export const STRONG_PASSWORD = 'Stamp.card1'

export function sql<Row extends object = Record<string, unknown>>(
  query: string,
  replacements: Record<string, unknown> = {},
) {
  return getSequelize().query<Row>(query, { replacements, type: QueryTypes.SELECT })
}

let counter = 0
/** A unique address for each test, so tests in one file never meet. */
export const uniqueEmail = (label = 'owner') => `${label}-${Date.now().toString(36)}-${++counter}@example.com`

export async function createUser({
  email = uniqueEmail(),
  password = STRONG_PASSWORD,
  confirmed = true,
  premade = false,
}: { email?: string; password?: string; confirmed?: boolean; premade?: boolean } = {}) {
  const [row] = await sql<{ id: string }>(
    `insert into users (email, password_hash, email_confirmed_at, is_premade)
     values (:email, :hash, case when :confirmed then now() end, :premade) returning id`,
    { email, hash: await hashPassword(password), confirmed, premade },
  )
  return { id: row!.id, email, password }
}

/** POSTs a JSON body (or, given a string, that exact text) the way a browser's fetch would. */
export function postJson(server: TestServer, pathname: string, body: unknown, headers: Record<string, string> = {}) {
  return server.fetch(pathname, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

/** The `name=value` part of the session cookie a response sets. */
export function sessionCookie(response: Response): string {
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith('__session='))
  expect(cookie, 'a session cookie').toBeDefined()
  return cookie!.split(';')[0]!
}

export async function logIn(server: TestServer, email: string, password = STRONG_PASSWORD) {
  const response = await postJson(server, '/api/auth/login', { email, password })
  expect(response.status).toBe(200)
  return sessionCookie(response)
}

export const me = (server: TestServer, cookie?: string) =>
  server.fetch('/api/auth/me', { headers: cookie ? { Cookie: cookie } : {} })

/** The token of the newest link to `pathname` mailed to `email` (mail is stored in `mails` without SMTP_URL). */
export async function tokenFromMail(email: string, pathname: '/email-confirmed' | '/change-password') {
  const [mail] = await sql<{ text_body: string }>(
    `select text_body from mails where to_address = :email order by created_at desc, id desc limit 1`,
    { email },
  )
  expect(mail, `a mail to ${email}`).toBeDefined()
  const link = new RegExp(`https?://\\S+${pathname}\\?token=([\\w-]+)`).exec(mail!.text_body)
  expect(link, `a ${pathname} link in the mail`).not.toBeNull()
  return link![1]!
}

export async function mailCount(email: string) {
  const [row] = await sql<{ count: number }>('select count(*)::int as count from mails where to_address = :email', {
    email,
  })
  return row!.count
}

/** Every JSON answer has the same shape (docs/product/contracts.md, "JSON answers") and is never cached. */
export async function expectAnswer(
  response: Response,
  httpStatus: number,
  expected: { status: 'success' | 'error' | 'premaid'; message?: string; errors?: Record<string, string[]> },
) {
  expect(response.status).toBe(httpStatus)
  expect(response.headers.get('Content-Type')).toMatch(/^application\/json/)
  expect(response.headers.get('Cache-Control')).toBe('no-store')
  const body = (await response.json()) as Record<string, unknown> & {
    message: string
    msg: string
    errors: Record<string, string[]>
  }
  expect(body.status).toBe(expected.status)
  expect(body.msg).toBe(body.message)
  expect(typeof body.message).toBe('string')
  if (expected.message !== undefined) expect(body.message).toBe(expected.message)
  expect(body.errors).toEqual(expected.errors ?? {})
  return body
}
