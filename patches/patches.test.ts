import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'

/*
 * Each patch in this folder is applied by patch-package at `npm ci` (postinstall, --error-on-fail). This proves,
 * patch by patch, that node_modules holds the patched code: every hunk's new side (its context and added lines)
 * stands in the target file as one block. A patch that no longer applies after an upgrade fails here by name.
 */

const PATCHES = path.dirname(new URL(import.meta.url).pathname)

type Hunk = { file: string; header: string; newSide: string[] }

function hunksOf(patch: string): Hunk[] {
  const hunks: Hunk[] = []
  let file = ''
  let current: Hunk | null = null
  for (const line of patch.split('\n')) {
    if (line.startsWith('+++ b/')) {
      file = line.slice('+++ b/'.length)
      current = null
    } else if (line.startsWith('@@')) {
      current = { file, header: line, newSide: [] }
      hunks.push(current)
    } else if (current && (line.startsWith(' ') || line.startsWith('+'))) {
      current.newSide.push(line.slice(1))
    }
  }
  return hunks
}

const patchFiles = fs.readdirSync(PATCHES).filter((name) => name.endsWith('.patch'))

test('the folder holds the patches this test reads', () => {
  expect(patchFiles.length).toBeGreaterThan(0)
})

describe.each(patchFiles)('%s', (patchFile) => {
  const hunks = hunksOf(fs.readFileSync(path.join(PATCHES, patchFile), 'utf8'))

  test('is applied in node_modules', () => {
    expect(hunks.length).toBeGreaterThan(0)
    for (const hunk of hunks) {
      const target = path.resolve(hunk.file)
      expect(fs.existsSync(target), `${hunk.file} exists`).toBe(true)
      const text = fs.readFileSync(target, 'utf8')
      expect(text.includes(hunk.newSide.join('\n')), `${hunk.file} ${hunk.header} is applied`).toBe(true)
    }
  })
})
