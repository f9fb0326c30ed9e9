import crypto from 'node:crypto'
import { promisify } from 'node:util'

const scrypt = promisify(crypto.scrypt) as (
  password: crypto.BinaryLike,
  salt: crypto.BinaryLike,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>

// scrypt with N=2^14, r=8, p=1: about 35-50 ms on our 2-core machine, which keeps sign-in under its 150 ms budget
// (see docs/decisions). The parameters are stored with each hash, so the cost can be raised later: old hashes
// still verify, and needsRehash() tells the sign-in to store a new one.
const PARAMS = { N: 2 ** 14, r: 8, p: 1 } as const
const KEY_LENGTH = 32
const MAXMEM = 64 * 1024 * 1024

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16)
  const key = await scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { ...PARAMS, maxmem: MAXMEM })
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$')
}

export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parts = (stored ?? '').split('$')
  if (parts.length !== 6 || parts[0] !== 'scrypt') {
    // Still spend the time, so an unknown account answers as slowly as a wrong password.
    await hashPassword(password)
    return false
  }
  const [, n, r, p, saltText, keyText] = parts as [string, string, string, string, string, string]
  const expected = Buffer.from(keyText, 'base64url')
  const key = await scrypt(password.normalize('NFKC'), Buffer.from(saltText, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: MAXMEM,
  })
  return crypto.timingSafeEqual(key, expected)
}

export function needsRehash(stored: string): boolean {
  const [, n, r, p] = stored.split('$')
  return Number(n) !== PARAMS.N || Number(r) !== PARAMS.r || Number(p) !== PARAMS.p
}
