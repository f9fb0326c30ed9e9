import { ensureFreshBuild } from '#tests/support/fresh-build.ts'
import { createTemplate, dropTemplate } from './test-database.ts'

/**
 * Runs once per `vitest run`: makes sure the build is newer than the sources and a migrated template database exists.
 */
export default async function globalSetup() {
  process.env.STAMPWISE_TEST_RUN ??= `${process.pid}`
  ensureFreshBuild()
  await createTemplate()
  return async () => {
    await dropTemplate()
  }
}
