import { execSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

/*
 * Integration and browser tests run the built app (build/), not the sources. A build older than the sources would
 * test yesterday's code and pass, so before a run the build is remade when any source file is newer than its last
 * output (the embedded database template, written at the end of `npm run build`).
 */

const LAST_OUTPUT = 'build/embedded-template.tar'
const SOURCE_DIRS = ['app', 'models', 'migrations', 'content', 'public']
const SOURCE_FILES = ['vite.config.ts', 'package-lock.json', 'tsconfig.json', 'scripts/build-embedded-template.ts']
// Tests beside the code are not part of the build: editing one must not cost a rebuild.
const NOT_BUILT = /\.test\.tsx?$/

function newestSourceTime(root: string): number {
  let newest = 0
  const visit = (file: string) => {
    const stat = fs.statSync(file, { throwIfNoEntry: false })
    if (!stat) return
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(file)) visit(path.join(file, name))
    } else if (!NOT_BUILT.test(file)) {
      newest = Math.max(newest, stat.mtimeMs)
    }
  }
  for (const entry of [...SOURCE_DIRS, ...SOURCE_FILES]) visit(path.join(root, entry))
  return newest
}

/** Why the build must be made again, or null when it is newer than every source file. */
export function staleBuildReason(root = process.cwd()): string | null {
  const built = fs.statSync(path.join(root, LAST_OUTPUT), { throwIfNoEntry: false })
  if (!built) return 'there is no build'
  return newestSourceTime(root) > built.mtimeMs ? 'the build is older than the sources' : null
}

export function ensureFreshBuild(root = process.cwd()) {
  const reason = staleBuildReason(root)
  if (!reason) return
  console.info(`building the app: ${reason}`)
  // Without VITEST in its environment: vite.config.ts leaves the Remix plugin out under vitest.
  const { VITEST: _vitest, ...env } = process.env
  execSync('npm run build', { cwd: root, stdio: 'inherit', env })
}
