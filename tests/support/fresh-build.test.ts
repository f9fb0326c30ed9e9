import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { staleBuildReason } from './fresh-build.ts'

let root: string
const write = (file: string, when: number) => {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
  fs.writeFileSync(path.join(root, file), 'x')
  fs.utimesSync(path.join(root, file), when, when)
}

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-fresh-build-'))
})
afterEach(() => fs.rmSync(root, { recursive: true, force: true }))

test('no build at all is stale', () => {
  write('app/root.tsx', 1000)
  expect(staleBuildReason(root)).toBe('there is no build')
})

test('a build newer than every source is fresh', () => {
  write('app/routes/page.tsx', 1000)
  write('models/card.server.ts', 1000)
  write('build/embedded-template.tar', 2000)
  expect(staleBuildReason(root)).toBeNull()
})

test('a source file edited after the build makes it stale, in any source folder', () => {
  write('build/embedded-template.tar', 2000)
  write('app/root.tsx', 1000)
  write('migrations/0001-initial.ts', 3000)
  expect(staleBuildReason(root)).toBe('the build is older than the sources')
})

test('a test beside the code is not part of the build', () => {
  write('build/embedded-template.tar', 2000)
  write('app/utils/contrast.test.ts', 3000)
  expect(staleBuildReason(root)).toBeNull()
})
