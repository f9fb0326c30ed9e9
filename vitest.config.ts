import os from 'node:os'
import { defineConfig } from 'vitest/config'
import SlowFilesFirst from './tests/setup/slow-files-first.ts'
import { pushEndpointCaCerts } from './tests/support/push-endpoint.ts'

// Workers (and their children) trust the local push endpoint's self-signed certificate. Node reads
// NODE_EXTRA_CA_CERTS only at start, so it is set here, in the main process, before the workers are forked.
process.env.NODE_EXTRA_CA_CERTS = pushEndpointCaCerts()

// Two projects: unit tests beside the code (no database), and integration tests in tests/integration, each
// file on its own copy of a migrated database (embedded, or the PostgreSQL server when TEST_DATABASE_URL is set).
export default defineConfig({
  test: {
    env: { NODE_ENV: 'test', LOG_LEVEL: 'silent' },
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // At least two files at once: vitest's default (one fewer than the cores) is one on a 2-core CI machine, where the
    // integration tests mostly wait on the database, HTTP and the job queue (measured: 1.4× faster on the embedded
    // database, 1.7× on the PostgreSQL server; docs/decisions/038-two-test-workers.md).
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // Longest files first, also in a clean checkout with no durations cached (tests/setup/slow-files-first.ts).
    sequence: { sequencer: SlowFilesFirst },
    // A test.only left behind would run alone and the rest would silently not run: CI refuses it.
    allowOnly: !process.env.CI,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [
            'server.test.ts',
            'app/**/*.test.{ts,tsx}',
            'models/**/*.test.ts',
            'scripts/**/*.test.ts',
            'tests/support/**/*.test.ts',
            'tests/structure/**/*.test.ts',
            'patches/*.test.ts',
          ],
          setupFiles: ['tests/setup/fail-on-console-error.ts', 'tests/setup/fail-on-error-log.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          globalSetup: ['tests/setup/global-setup.ts'],
          setupFiles: [
            'tests/setup/fail-on-console-error.ts',
            'tests/setup/fail-on-error-log.ts',
            'tests/setup/integration-setup.ts',
          ],
        },
      },
    ],
  },
})
