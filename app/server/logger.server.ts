import { remember } from '@epic-web/remember'
import pino from 'pino'

/** Where a test setup collects error lines (tests/setup/fail-on-error-log.ts): a function of one JSON line. */
export const TEST_ERROR_LOG_SINK = Symbol.for('stampwise.test-error-log-sink')

/**
 * Under tests only error and fatal lines are written, and not lost: to the sink a test setup installed, which fails
 * the test that caused them, else to stderr, where a test that started this process (or Playwright) sees them.
 */
const testDestination = {
  write(line: string) {
    const sink = (globalThis as { [TEST_ERROR_LOG_SINK]?: (line: string) => void })[TEST_ERROR_LOG_SINK]
    if (sink) sink(line)
    else process.stderr.write(line)
  },
}

/**
 * One structured (JSON) logger for the process; request logs add a request id to every line.
 * Reads process.env directly: it must work even while the configuration is being reported as invalid.
 */
export const logger = remember('logger', () => {
  const options = {
    base: { pid: process.pid },
    redact: ['req.headers.cookie', 'req.headers.authorization', 'res.headers["set-cookie"]'],
  }
  if (process.env.NODE_ENV === 'test') return pino({ ...options, level: 'error' }, testDestination)
  return pino({ ...options, level: process.env.LOG_LEVEL ?? 'info' })
})
