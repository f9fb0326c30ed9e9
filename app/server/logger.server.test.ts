import { expect, test } from 'vitest'
import { expectErrorLog, takeUnexpectedErrorLogs } from '#tests/support/error-logs.ts'
import { logger } from './logger.server.ts'

// Under tests the logger's error lines reach tests/setup/fail-on-error-log.ts, which fails the test that caused them.
test('an error line under tests reaches the test setup, and only an expected one passes', () => {
  logger.info('an ordinary line')
  logger.error({ err: new Error('disk full') }, 'mail worker failed')
  const [line, ...rest] = takeUnexpectedErrorLogs()
  expect(rest).toEqual([])
  expect(line).toMatchObject({ level: 50, msg: 'mail worker failed', err: { message: 'disk full' } })

  expectErrorLog('mail worker failed')
  logger.error('mail worker failed')
  logger.fatal('out of memory')
  expect(takeUnexpectedErrorLogs().map(({ msg }) => msg)).toEqual(['out of memory'])
})
