import { describe, expect, test } from 'vitest'
import { summarise, type StepRecord } from './test-summary.ts'

const vitestReport = (passed: number, failed: number, failedSuites = failed ? 1 : 0) => ({
  numPassedTests: passed,
  numFailedTests: failed,
  numPendingTests: 0,
  numTodoTests: 0,
  numFailedTestSuites: failedSuites,
  success: failed === 0,
})

function run(steps: StepRecord[], reports: Record<string, unknown>) {
  return summarise(steps, (file) => reports[file])
}

const closing = (summary: ReturnType<typeof summarise>) => summary.lines.at(-1)

describe('the closing line of npm test', () => {
  test('adds up vitest and Playwright reports', () => {
    const summary = run(
      [
        { name: 'build', code: 0, seconds: 20, report: null },
        { name: 'vitest', code: 0, seconds: 60, report: 'v.json' },
        { name: 'browser', code: 0, seconds: 90, report: 'p.json' },
      ],
      {
        'v.json': vitestReport(10, 0),
        'p.json': { stats: { expected: 5, unexpected: 0, flaky: 1, skipped: 2 }, suites: [], errors: [] },
      },
    )
    expect(closing(summary)).toBe('16 passed, 0 failed, 2 skipped')
    expect(summary.lines).toContain('vitest: 60 s')
  })

  test('a vitest unhandled error fails the line although its JSON counts no failed test', () => {
    const summary = run([{ name: 'vitest', code: 1, seconds: 5, report: 'v.json' }], { 'v.json': vitestReport(10, 0) })
    expect(closing(summary)).toBe('10 passed, 1 failed, 0 skipped')
    expect(summary.lines.some((line) => line.startsWith('failure: vitest: exited with code 1'))).toBe(true)
  })

  test('a failing global setup (no report at all) fails the line', () => {
    const summary = run([{ name: 'vitest', code: 1, seconds: 5, report: 'v.json' }], {})
    expect(closing(summary)).toBe('0 passed, 1 failed, 0 skipped')
    expect(summary.lines).toContain('failure: vitest: wrote no report')
  })

  test('a Playwright web server or import error fails the line though every test vanished', () => {
    const summary = run([{ name: 'browser', code: 1, seconds: 5, report: 'p.json' }], {
      'p.json': {
        stats: { expected: 0, unexpected: 0, flaky: 0, skipped: 0 },
        suites: [],
        errors: [{ message: 'Error: Process from config.webServer was not able to start. Exit code: 1\nmore' }],
      },
    })
    expect(closing(summary)).toBe('0 passed, 1 failed, 0 skipped')
    expect(summary.lines).toContain(
      'failure: browser: Error: Process from config.webServer was not able to start. Exit code: 1',
    )
  })

  test('a type error (a step without a report) fails the line', () => {
    const summary = run([{ name: 'typecheck', code: 2, seconds: 30, report: null }], {})
    expect(closing(summary)).toBe('0 passed, 1 failed, 0 skipped')
  })

  test('a lint error or an unformatted file (steps without a report) fails the line; a pass counts nothing', () => {
    const summary = run(
      [
        { name: 'lint (ESLint)', code: 1, seconds: 40, report: null },
        { name: 'formatting (Prettier)', code: 0, seconds: 20, report: null },
        { name: 'vitest', code: 0, seconds: 60, report: 'v.json' },
      ],
      { 'v.json': vitestReport(10, 0) },
    )
    expect(closing(summary)).toBe('10 passed, 1 failed, 0 skipped')
    expect(summary.lines).toContain('lint (ESLint): 40 s (exit code 1)')
    expect(summary.lines).toContain('failure: lint (ESLint): failed (exit code 1; its findings are printed above)')
    expect(summary.lines.some((line) => line.startsWith('failure: formatting (Prettier)'))).toBe(false)
    const unformatted = run([{ name: 'formatting (Prettier)', code: 1, seconds: 20, report: null }], {})
    expect(closing(unformatted)).toBe('0 passed, 1 failed, 0 skipped')
  })

  test('a step stopped by its time limit says so', () => {
    const summary = run([{ name: 'browser', code: 124, seconds: 1500, report: 'p.json' }], {})
    expect(summary.lines).toContain('failure: browser: wrote no report')
    const withReport = run([{ name: 'browser', code: 124, seconds: 1500, report: null }], {})
    expect(withReport.lines).toContain('failure: browser: ran past its time limit and was stopped')
  })

  test('failed tests count once each, not once more for their step', () => {
    const summary = run([{ name: 'vitest', code: 1, seconds: 5, report: 'v.json' }], { 'v.json': vitestReport(8, 2) })
    expect(closing(summary)).toBe('8 passed, 2 failed, 0 skipped')
  })

  test('flaky tests are listed on their own lines before the closing line', () => {
    const summary = run([{ name: 'browser', code: 0, seconds: 5, report: 'p.json' }], {
      'p.json': {
        stats: { expected: 1, unexpected: 0, flaky: 1, skipped: 0 },
        suites: [
          {
            title: 'stamping.spec.ts',
            specs: [],
            suites: [
              {
                title: 'the counter',
                specs: [
                  {
                    title: 'stamps a card',
                    tests: [
                      { projectName: 'js', status: 'flaky' },
                      { projectName: 'no-js', status: 'expected' },
                    ],
                  },
                ],
              },
            ],
          },
        ],
        errors: [],
      },
    })
    expect(summary.lines.slice(-2)).toEqual([
      'flaky: stamping.spec.ts › the counter › stamps a card [js]',
      '2 passed, 0 failed, 0 skipped',
    ])
  })

  test('each failed test is named with the first line of its error, vitest and Playwright alike', () => {
    const summary = run(
      [
        { name: 'vitest', code: 1, seconds: 5, report: 'v.json' },
        { name: 'browser', code: 1, seconds: 5, report: 'p.json' },
      ],
      {
        'v.json': {
          ...vitestReport(3, 1),
          testResults: [
            {
              name: `${process.cwd()}/tests/integration/stamps.test.ts`,
              status: 'failed',
              assertionResults: [
                { fullName: 'stamping adds one', status: 'passed' },
                {
                  fullName: 'stamping refuses a second scan',
                  status: 'failed',
                  failureMessages: ['\u001b[31mAssertionError: expected 2 to be 1\u001b[39m\n    at stamps.test.ts:10'],
                },
              ],
            },
            { name: `${process.cwd()}/tests/integration/broken.test.ts`, status: 'failed', message: 'Hook timed out' },
          ],
        },
        'p.json': {
          stats: { expected: 0, unexpected: 1, flaky: 0, skipped: 0 },
          suites: [
            {
              title: 'join.spec.ts',
              specs: [
                {
                  title: 'joins',
                  tests: [
                    { projectName: 'no-js', status: 'unexpected', results: [{ error: { message: 'Timeout\nmore' } }] },
                  ],
                },
              ],
            },
          ],
          errors: [],
        },
      },
    )
    expect(summary.lines).toContain(
      'failed: vitest: tests/integration/stamps.test.ts › stamping refuses a second scan: AssertionError: expected 2 to be 1',
    )
    expect(summary.lines).toContain('failed: vitest: tests/integration/broken.test.ts: Hook timed out')
    expect(summary.lines).toContain('failed: browser: join.spec.ts › joins [no-js]: Timeout')
    expect(closing(summary)).toBe('3 passed, 2 failed, 0 skipped')
  })
})
