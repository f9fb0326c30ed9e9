import { TEST_ERROR_LOG_SINK } from '#app/server/logger.server.ts'

/**
 * The app logger's error and fatal lines during a test (app/server/logger.server.ts sends them here under tests),
 * those of the processes the test started included (tests/support/child-process.ts). An error nobody expected fails
 * the test (tests/setup/fail-on-error-log.ts); a test that provokes one names it with `expectErrorLog`.
 */
export type ErrorLogLine = { level: number; msg?: string; source: string; [field: string]: unknown }
type Expected = { name: string; matches: (line: ErrorLogLine) => boolean }

let logged: ErrorLogLine[] = []
let expected: Expected[] = []

/** Pino's numeric level for error; fatal is 60. */
export const ERROR_LEVEL = 50

export function recordErrorLog(text: string, source = 'this process') {
  for (const json of text.split('\n').filter(Boolean)) {
    let line: ErrorLogLine
    try {
      line = { ...(JSON.parse(json) as ErrorLogLine), source }
    } catch {
      line = { level: ERROR_LEVEL, msg: json, source }
    }
    if (line.level >= ERROR_LEVEL) logged.push(line)
  }
}

export function installErrorLogSink() {
  ;(globalThis as { [TEST_ERROR_LOG_SINK]?: (text: string) => void })[TEST_ERROR_LOG_SINK] = (text) =>
    recordErrorLog(text)
}

/**
 * Declares an error line this test causes on purpose: its `msg` equals `msg` (or matches it), and `fields`, when
 * given, are equal in the line (`{ res: { statusCode: 500 } }` is compared as JSON). It may occur any number of times.
 */
export function expectErrorLog(msg: string | RegExp, fields: Record<string, unknown> = {}) {
  expected.push({
    name: `${String(msg)} ${JSON.stringify(fields)}`,
    matches: (line) =>
      (typeof msg === 'string' ? line.msg === msg : msg.test(line.msg ?? '')) &&
      Object.entries(fields).every(([key, value]) => JSON.stringify(line[key]) === JSON.stringify(value)),
  })
}

/** The lines nobody expected since the last call; the expectations end with it. */
export function takeUnexpectedErrorLogs() {
  const unexpected = logged.filter((line) => !expected.some(({ matches }) => matches(line)))
  logged = []
  expected = []
  return unexpected
}

export function describeErrorLogs(lines: ErrorLogLine[]) {
  return lines
    .map(({ source, level, msg, err }) => {
      const error = err as { type?: string; message?: string; stack?: string } | undefined
      return `[${source}] level ${level}: ${msg ?? ''}${error ? `\n  ${error.stack ?? `${error.type}: ${error.message}`}` : ''}`
    })
    .join('\n')
}
