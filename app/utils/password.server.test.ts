import { describe, expect, test } from 'vitest'
import { hashPassword, needsRehash, verifyPassword } from './password.server.ts'

describe('password hashing', () => {
  test('a hash verifies its own password and no other', async () => {
    const hash = await hashPassword('Secret1!')
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$/)
    expect(hash).not.toContain('Secret1!')
    expect(await verifyPassword('Secret1!', hash)).toBe(true)
    expect(await verifyPassword('secret1!', hash)).toBe(false)
  })

  test('two hashes of one password differ (salted)', async () => {
    expect(await hashPassword('Secret1!')).not.toBe(await hashPassword('Secret1!'))
  })

  test('a missing or malformed hash never verifies', async () => {
    expect(await verifyPassword('Secret1!', null)).toBe(false)
    expect(await verifyPassword('Secret1!', 'plain-text')).toBe(false)
  })

  test('hashes made with other parameters ask to be rehashed', async () => {
    expect(needsRehash(await hashPassword('x'))).toBe(false)
    expect(needsRehash('scrypt$8192$8$1$salt$key')).toBe(true)
  })
})
