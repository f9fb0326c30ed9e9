import { afterAll, afterEach } from 'vitest'
import { describeErrorLogs, installErrorLogSink, takeUnexpectedErrorLogs } from '#tests/support/error-logs.ts'

// A test during which the app logged an error (or a process it started did) fails, unless it named that error with
// expectErrorLog: the error log is what an operator reads, so an error a test did not expect is a bug nobody sees.
installErrorLogSink()

function failOnUnexpectedErrorLogs(when: string) {
  const unexpected = takeUnexpectedErrorLogs()
  if (unexpected.length)
    throw new Error(
      `the app logged ${unexpected.length} unexpected error line(s) ${when}:\n${describeErrorLogs(unexpected)}`,
    )
}

afterEach(() => failOnUnexpectedErrorLogs('during the test'))
afterAll(() => failOnUnexpectedErrorLogs('after the last test of the file'))
