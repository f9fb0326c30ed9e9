import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * The files that take longest start first, so no long file starts last and keeps one worker busy alone while the
 * other waits (docs/decisions/057-ci-under-40-minutes.md). vitest orders by the durations it cached from the last
 * run, but a clean checkout (CI) has none, and it then orders by file size, which put the 72-second
 * container-scripts file in the middle. These are the files above ~14 s on either database (measured on the 2-core
 * CI machine, December 2026), longest first; every other file keeps vitest's own order after them.
 */
const SLOW_FILES = [
  'tests/integration/bad-input.test.ts',
  'tests/integration/push-crash.test.ts',
  'tests/integration/container-scripts.test.ts',
  'tests/integration/scheduled-push-instances.test.ts',
  'tests/integration/server-process.test.ts',
  'tests/integration/db-backup-restore.test.ts',
  'tests/integration/embedded-lock.test.ts',
  'tests/integration/db-migrate-command.test.ts',
  'tests/integration/soak.test.ts',
  'tests/integration/push-retry.test.ts',
  'tests/integration/db-copy-to.test.ts',
  'tests/integration/get-changes-nothing.test.ts',
  'tests/integration/google-wallet.test.ts',
  'tests/integration/durability.test.ts',
  'tests/integration/push-delivery.test.ts',
  'tests/integration/body-limits.test.ts',
]

const rank = (file: TestSpecification) => {
  const index = SLOW_FILES.findIndex((slow) => file.moduleId.endsWith(`/${slow}`))
  return index === -1 ? SLOW_FILES.length : index
}

export default class SlowFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]) {
    // Array.prototype.sort is stable: the rest keep the order vitest chose.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b))
  }
}
