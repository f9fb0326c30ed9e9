import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, test } from 'vitest'

/**
 * The team's conventions ("Data access goes through models"): every SQL statement lives in
 * models/, so services and routes neither run queries themselves nor hold their text. A query found here belongs in
 * the model of its entity (the invitation's inviter name moved to models/staff.server.ts).
 */
const ROOT = join(import.meta.dirname, '..', '..')
const QUERY_RUNNERS = /\b(selectRows|getSequelize|sequelize\.query)\b/
const SQL_TEXT = /`\s*(select|insert\s+into|update\s+\w+\s+set|delete\s+from|with\s+\w+\s+as)\s/i

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sources(path)
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : []
  })
}

describe('SQL lives in models/', () => {
  test.each(['app/services', 'app/routes'])('%s runs no query and holds no SQL text', (dir) => {
    const offenders = sources(join(ROOT, dir)).filter((path) => {
      const text = readFileSync(path, 'utf8')
      return QUERY_RUNNERS.test(text) || SQL_TEXT.test(text)
    })
    expect(offenders.map((path) => relative(ROOT, path))).toEqual([])
  })
})
