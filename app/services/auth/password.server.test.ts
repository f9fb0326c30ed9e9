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

  test('any Unicode, emoji included, and the whole of a long passphrase counts (ASVS 2.1.2–2.1.4)', async () => {
    const passphrase = 'Crème brûlée, 🙂 und Grüße aus Köln! 12 '.repeat(3)
    const hash = await hashPassword(passphrase)
    expect(await verifyPassword(passphrase, hash)).toBe(true)
    // Nothing is truncated: a difference in the last character fails.
    expect(await verifyPassword(`${passphrase.slice(0, -1)}?`, hash)).toBe(false)
    // NFKC: the same text typed with a composed or a decomposed accent, or a ligature, is the same password.
    expect(await verifyPassword('Cre\u0300me', await hashPassword('Cr\u00e8me'))).toBe(true)
    expect(await verifyPassword('\ufb01ne.A1', await hashPassword('fine.A1'))).toBe(true)
  })
})
