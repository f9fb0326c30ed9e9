import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { getEnv } from './env.server.ts'

let cached: string[] | undefined

/**
 * Secrets that sign cookies, newest first. SESSION_SECRET (comma-separated for rotation) in production; outside
 * production, generated once into DATA_DIR so sessions survive restarts without any setup.
 */
export function getSessionSecrets(): string[] {
  if (cached) return cached
  const env = getEnv()
  if (env.SESSION_SECRET) {
    cached = env.SESSION_SECRET.split(',')
      .map((s) => s.trim())
      .filter(Boolean)
    return cached
  }
  const file = path.join(path.resolve(env.DATA_DIR), 'session-secret')
  try {
    cached = [fs.readFileSync(file, 'utf8').trim()]
  } catch {
    fs.mkdirSync(path.dirname(file), { recursive: true })
    const secret = crypto.randomBytes(32).toString('base64url')
    try {
      fs.writeFileSync(file, secret, { flag: 'wx', mode: 0o600 })
      cached = [secret]
    } catch {
      cached = [fs.readFileSync(file, 'utf8').trim()] // another process wrote it first
    }
  }
  return cached
}
