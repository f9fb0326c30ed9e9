/**
 * Adds up what every step of `npm test` left in the reports folder (steps.tsv from scripts/test-all.sh and the JSON
 * reports of vitest and Playwright) and prints the time of each step, each failed test with the first line of its
 * error (CI shows only the log's tail), the flaky tests, and one closing line,
 * 'N passed, N failed, N skipped', that CI reads whatever runner produced the counts.
 *
 * A step that failed without a failing test still fails the line: a vitest unhandled error (its JSON says success),
 * a failing global setup, a Playwright web server or import error (every test vanishes), a type error, a time limit.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export type StepRecord = { name: string; code: number; seconds: number; report: string | null }
export type Summary = { passed: number; failed: number; skipped: number; lines: string[] }

type VitestReport = {
  numPassedTests: number
  numFailedTests: number
  numPendingTests: number
  numTodoTests?: number
  numFailedTestSuites: number
  testResults?: {
    name: string
    status: string
    message?: string
    assertionResults?: { fullName: string; status: string; failureMessages?: string[] }[]
  }[]
}
type PlaywrightTest = { projectName: string; status: string; results?: { error?: { message?: string } }[] }
type PlaywrightSuite = {
  title: string
  specs?: { title: string; tests: PlaywrightTest[] }[]
  suites?: PlaywrightSuite[]
}
type PlaywrightReport = {
  stats: { expected: number; unexpected: number; flaky: number; skipped: number }
  suites?: PlaywrightSuite[]
  errors?: { message?: string }[]
}

/** The exit codes of `timeout`: 124 when it sent its signal, 137 when it had to kill. */
const TIMED_OUT = new Set([124, 137])

/** The first line of an error message, without colour codes, so that a CI log's tail says why a test failed. */
function firstLine(message: string | undefined): string {
  // eslint-disable-next-line no-control-regex
  const plain = (message ?? '').replace(/\u001b\[[0-9;]*m/g, '')
  const line = plain.split('\n').find((l) => l.trim() !== '') ?? ''
  return line.trim().slice(0, 240)
}

/** Playwright tests with the given status, each as 'file › describe › title [project]' and its last error. */
function playwrightTests(
  status: string,
  suites: PlaywrightSuite[] = [],
  parents: string[] = [],
): { title: string; error: string }[] {
  return suites.flatMap((suite) => {
    const trail = suite.title ? [...parents, suite.title] : parents
    const own = (suite.specs ?? []).flatMap((spec) =>
      spec.tests
        .filter((t) => t.status === status)
        .map((t) => ({
          title: `${[...trail, spec.title].join(' › ')} [${t.projectName}]`,
          error: firstLine(t.results?.at(-1)?.error?.message),
        })),
    )
    return [...own, ...playwrightTests(status, suite.suites, trail)]
  })
}

/** Vitest's failed tests as 'file › describe › title: first line of the error'; a file that failed to load or whose
 * hooks failed, with none of its tests failing, as 'file: its message'. */
function vitestFailures(report: VitestReport): string[] {
  return (report.testResults ?? []).flatMap((file) => {
    const name = path.relative(process.cwd(), file.name) || file.name
    const failedTests = (file.assertionResults ?? []).filter((t) => t.status === 'failed')
    if (failedTests.length > 0) {
      return failedTests.map((t) => `${name} › ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`)
    }
    return file.status === 'failed' ? [`${name}: ${firstLine(file.message)}`] : []
  })
}

export function summarise(steps: StepRecord[], readReport: (file: string) => unknown | undefined): Summary {
  let passed = 0
  let failed = 0
  let skipped = 0
  const lines: string[] = []
  const problems: string[] = []
  const flaky: string[] = []
  const failedTests: string[] = []

  for (const step of steps) {
    lines.push(`${step.name}: ${step.seconds} s${step.code === 0 ? '' : ` (exit code ${step.code})`}`)
    let failedHere = 0
    const report = step.report ? readReport(step.report) : undefined
    if (step.report && report === undefined) {
      problems.push(`${step.name}: wrote no report`)
      failedHere += 1
    } else if (report && typeof report === 'object' && 'numPassedTests' in report) {
      const vitest = report as VitestReport
      passed += vitest.numPassedTests
      skipped += vitest.numPendingTests + (vitest.numTodoTests ?? 0)
      // A test file that fails to load or whose hooks fail counts once, when none of its tests did.
      failedHere += vitest.numFailedTests === 0 ? vitest.numFailedTestSuites : vitest.numFailedTests
      failedTests.push(...vitestFailures(vitest).map((line) => `${step.name}: ${line}`))
    } else if (report && typeof report === 'object' && 'stats' in report) {
      const playwright = report as PlaywrightReport
      passed += playwright.stats.expected + playwright.stats.flaky
      skipped += playwright.stats.skipped
      failedHere += playwright.stats.unexpected
      // Errors outside any test: a web server that did not start, a spec that does not import, a global setup.
      for (const error of playwright.errors ?? []) {
        problems.push(`${step.name}: ${(error.message ?? 'an error outside any test').split('\n')[0]}`)
        failedHere += 1
      }
      flaky.push(...playwrightTests('flaky', playwright.suites).map((t) => t.title))
      failedTests.push(
        ...playwrightTests('unexpected', playwright.suites).map((t) => `${step.name}: ${t.title}: ${t.error}`),
      )
    }
    if (step.code !== 0 && failedHere === 0) {
      problems.push(
        TIMED_OUT.has(step.code)
          ? `${step.name}: ran past its time limit and was stopped`
          : step.report
            ? `${step.name}: exited with code ${step.code} without a failing test (an unhandled error or a setup failure)`
            : `${step.name}: failed (exit code ${step.code}; its findings are printed above)`,
      )
      failedHere = 1
    }
    failed += failedHere
  }

  lines.push(...failedTests.map((line) => `failed: ${line}`))
  lines.push(...problems.map((problem) => `failure: ${problem}`))
  lines.push(...flaky.map((title) => `flaky: ${title}`))
  lines.push(`${passed} passed, ${failed} failed, ${skipped} skipped`)
  return { passed, failed, skipped, lines }
}

export function readSteps(dir: string): StepRecord[] {
  const file = path.join(dir, 'steps.tsv')
  if (!fs.existsSync(file)) return []
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [name = '', code, seconds, report = '-'] = line.split('\t')
      return { name, code: Number(code), seconds: Number(seconds), report: report === '-' ? null : report }
    })
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? '.test-reports'
  const steps = readSteps(dir)
  const summary = summarise(steps, (file) => {
    const full = path.join(dir, file)
    if (!fs.existsSync(full)) return undefined
    try {
      return JSON.parse(fs.readFileSync(full, 'utf8'))
    } catch {
      return undefined
    }
  })
  if (steps.length === 0) {
    summary.lines.splice(-1, 1, 'failure: no step recorded', `0 passed, 1 failed, 0 skipped`)
    summary.failed = 1
  }
  console.log(summary.lines.join('\n'))
  process.exitCode = summary.failed > 0 ? 1 : 0
}
