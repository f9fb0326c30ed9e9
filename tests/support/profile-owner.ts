import sharp from 'sharp'
import { createUser, sql, STRONG_PASSWORD } from './auth-api.ts'

/**
 * Helpers for the profile settings tests: an owner on a trial (the account pages need a subscription) and real
 * images made by sharp.
 */
export async function createOwner({ password = STRONG_PASSWORD, role = 'owner' } = {}) {
  const user = await createUser({ password })
  await sql(
    `insert into subscriptions (user_id, status, trial_ends_at) values (:id, 'trial', now() + interval '14 days')`,
    {
      id: user.id,
    },
  )
  if (role !== 'owner') await sql('update users set role = :role where id = :id', { role, id: user.id })
  return user
}

export const image = (format: 'png' | 'jpeg' | 'webp', width = 600, height = 400) =>
  sharp({ create: { width, height, channels: 3, background: { r: 30, g: 120, b: 200 } } })
    .toFormat(format)
    .toBuffer()

/** A valid PNG over `bytes` long: noise does not compress, so the file stays big. */
export async function bigPng(bytes: number) {
  const side = Math.ceil(Math.sqrt(bytes / 3)) + 10
  const noise = Buffer.alloc(side * side * 3)
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24
  return sharp(noise, { raw: { width: side, height: side, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer()
}

export async function userRow(id: string) {
  const [row] = await sql<{
    email: string
    email_confirmed: boolean
    logo_content_type: string | null
    has_logo: boolean
  }>(
    `select email, email_confirmed_at is not null as email_confirmed, logo_content_type, logo is not null as has_logo
     from users where id = :id`,
    { id },
  )
  return row
}
