import { afterEach, describe, expect, test } from 'vitest'
import { createUser, sql } from '#tests/support/auth-api.ts'
import { killChildren, runTsToEnd } from '#tests/support/child-process.ts'

/*
 * `npm run admin -- grant|revoke <email>` (scripts/admin.ts) as ops run it: a separate process against this file's
 * database, the PostgreSQL server's (DATABASE_URL) or, with the embedded database, through the socket of the
 * process that holds it (this test's), as it goes through a running server's.
 */

const COMMAND = 'scripts/admin.ts'
const databaseEnv = (): Record<string, string> =>
  process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : { DATA_DIR: process.env.DATA_DIR! }

afterEach(killChildren)

const admin = (...args: string[]) => runTsToEnd(COMMAND, { env: databaseEnv(), args })
const roleOf = async (id: string) =>
  (await sql<{ role: string }>(`select role from users where id = :id`, { id }))[0]!.role
const lines = (text: string) => text.split('\n').filter(Boolean)

describe('npm run admin', () => {
  test('grant makes an owner an admin, revoke makes them an owner again; each says what it did', async () => {
    const user = await createUser()
    expect(await roleOf(user.id)).toBe('owner')

    const granted = await admin('grant', user.email)
    expect(granted).toMatchObject({ code: 0, stderr: '' })
    expect(lines(granted.stdout)).toEqual([`${user.email} is now an admin.`])
    expect(await roleOf(user.id)).toBe('admin')

    const again = await admin('grant', user.email)
    expect(again.code).toBe(0)
    expect(lines(again.stdout)).toEqual([`${user.email} was already an admin.`])

    const revoked = await admin('revoke', user.email)
    expect(revoked).toMatchObject({ code: 0, stderr: '' })
    expect(lines(revoked.stdout)).toEqual([`${user.email} is now an owner.`])
    expect(await roleOf(user.id)).toBe('owner')

    const revokedAgain = await admin('revoke', user.email)
    expect(lines(revokedAgain.stdout)).toEqual([`${user.email} was already an owner.`])
  }, 90_000)

  test('the e-mail is matched as stored: trimmed and lower-case', async () => {
    const user = await createUser()
    const result = await admin('grant', `  ${user.email.toUpperCase()} `)
    expect(result.code).toBe(0)
    expect(lines(result.stdout)).toEqual([`${user.email} is now an admin.`])
    expect(await roleOf(user.id)).toBe('admin')
  }, 60_000)

  test('an unknown e-mail: exit code 1, one line on stderr, nobody changed', async () => {
    const user = await createUser()
    const countAdmins = async () =>
      (await sql<{ count: number }>(`select count(*)::int as count from users where role = 'admin'`))[0]!.count
    const adminsBefore = await countAdmins()
    const result = await admin('grant', 'nobody-here@example.com')
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(lines(result.stderr)).toEqual(['No user has the e-mail nobody-here@example.com'])
    expect(await roleOf(user.id)).toBe('owner')
    expect(await countAdmins()).toBe(adminsBefore)
  }, 60_000)

  test.each([[[]], [['grant']], [['promote', 'x@example.com']]])(
    'wrong arguments %j: exit code 1 and the usage line',
    async (args) => {
      const result = await admin(...args)
      expect(result.code).toBe(1)
      expect(result.stdout).toBe('')
      expect(lines(result.stderr)).toEqual(['usage: npm run admin -- grant <email> | revoke <email>'])
    },
    60_000,
  )
})
