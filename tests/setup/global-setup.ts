import { execSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { createTemplate, dropTemplate } from './test-database.ts'

/** Runs once per `vitest run`: makes sure the app is built and a migrated template database exists. */
export default async function globalSetup() {
  process.env.STAMPWISE_TEST_RUN ??= `${process.pid}`
  if (!fs.existsSync(path.resolve('build/server/index.js'))) {
    // Without VITEST in its environment: vite.config.ts leaves the Remix plugin out under vitest.
    const { VITEST: _vitest, ...env } = process.env
    execSync('npm run build', { stdio: 'inherit', env })
  }
  await createTemplate()
  return async () => {
    await dropTemplate()
  }
}
