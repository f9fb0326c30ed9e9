import crypto from 'node:crypto'
import path from 'node:path'
import { expect, type Page } from '@playwright/test'
import pg from 'pg'
import { hashPassword } from '#app/services/auth/password.server.ts'

/**
 * Browser tests reach the app's embedded database through its Unix socket (the app server holds the data folder;
 * its socket serves every client). Used only to arrange what no page can: a trial's end date, an admin's payment
 * confirmation, a notice. What the owner then sees is always checked through the pages.
 */
let pool: pg.Pool | undefined

function getPool() {
  const dataDir = process.env.E2E_DATA_DIR
  if (!dataDir) throw new Error('E2E_DATA_DIR is not set: run the browser tests through playwright.config.ts')
  // One connection: the embedded database serves one query at a time anyway.
  pool ??= new pg.Pool({ host: path.resolve(dataDir), port: 5432, user: 'postgres', database: 'postgres', max: 1 })
  return pool
}

export async function sql<Row extends Record<string, unknown> = Record<string, unknown>>(
  text: string,
  values: unknown[] = [],
): Promise<Row[]> {
  const result = await getPool().query(text, values)
  return result.rows as Row[]
}

export const OWNER_PASSWORD = 'Stamp.card1'
let passwordHash: Promise<string> | undefined

export type TestOwner = { id: string; email: string; password: string }

/** A confirmed owner on a fresh 14-day trial, made directly in the database (sign-up itself is tested elsewhere). */
export async function createOwner(label = 'owner'): Promise<TestOwner> {
  passwordHash ??= hashPassword(OWNER_PASSWORD)
  const email = `${label}-${Date.now().toString(36)}-${crypto.randomBytes(4).toString('hex')}@example.com`
  const [user] = await sql<{ id: string }>(
    `insert into users (email, password_hash, email_confirmed_at) values ($1, $2, now()) returning id`,
    [email, await passwordHash],
  )
  await sql(
    `with s as (insert into subscriptions (user_id, status, trial_ends_at) values ($1, 'trial', now() + interval '14 days') returning id)
     insert into subscription_status_changes (subscription_id, to_status, cause) select id, 'trial', 'test owner' from s`,
    [user!.id],
  )
  return { id: user!.id, email, password: OWNER_PASSWORD }
}

/** Signs the page's browser context in through the login form's POST (the cookie lands in the context). */
export async function signIn(page: Page, owner: TestOwner) {
  const response = await page.request.post('/login', { form: { email: owner.email, password: owner.password } })
  expect(response.ok(), `sign-in of ${owner.email}`).toBe(true)
}

/** A card for the owner, active, as the card builder would save it. */
export async function createCard(
  ownerId: string,
  input: { title?: string; businessName?: string; stampsRequired?: number } = {},
) {
  const slug = `card-${crypto.randomBytes(6).toString('hex')}`
  const [card] = await sql<{ id: string; slug: string }>(
    `insert into cards (user_id, slug, status, title, business_name, stamps_required, reward)
     values ($1, $2, 'active', $3, $4, $5, 'A free coffee') returning id, slug`,
    [ownerId, slug, input.title ?? 'Coffee card', input.businessName ?? 'Corner Coffee', input.stampsRequired ?? 8],
  )
  return card!
}
