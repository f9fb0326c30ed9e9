import { getEnv, type Env } from '#app/server/env.server.ts'

/*
 * What every command (`npm run admin`, `db:migrate`, `db:backup`, `db:restore`, `db:copy-to`) does first: a failure
 * is one line on stderr and exit code 1, and a wrong setting stops it before anything touches the database.
 */

export const describeError = (error: unknown) => (error instanceof Error ? error.message : String(error))

export function fail(error: unknown): never {
  console.error(describeError(error).replace(/\s*\n\s*/g, ' '))
  process.exit(1)
}

/** The configuration, or the one line saying what is wrong with it. */
export function commandEnv(): Env {
  try {
    return getEnv()
  } catch (error) {
    fail(error)
  }
}
