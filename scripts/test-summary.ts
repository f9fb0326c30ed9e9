/**
 * Adds up the JSON reports of every vitest and Playwright run of `npm test` and prints one closing line,
 * 'N passed, N failed', that CI reads whatever runner produced the counts.
 */
import fs from 'node:fs'
import path from 'node:path'

const dir = process.argv[2] ?? '.test-reports'
let passed = 0
let failed = 0
let skipped = 0
for (const file of fs.readdirSync(dir).filter((name) => name.endsWith('.json'))) {
  const report = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'))
  if ('numPassedTests' in report) {
    passed += report.numPassedTests
    failed += report.numFailedTests
    skipped += report.numPendingTests + (report.numTodoTests ?? 0)
    if (report.numFailedTestSuites > 0 && report.numFailedTests === 0) failed += report.numFailedTestSuites
  } else if (report.stats) {
    passed += report.stats.expected + report.stats.flaky
    failed += report.stats.unexpected
    skipped += report.stats.skipped
  }
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`)
process.exitCode = failed > 0 ? 1 : 0
