import { Sequelize, QueryTypes } from 'sequelize'
import { describe, expect, test } from 'vitest'
import { databaseConnectionOptions } from '#app/server/db.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
import { usingServer } from '#tests/setup/test-database.ts'
import { sql } from '#tests/support/auth-api.ts'

/**
 * DATABASE_URL with libpq's `?host=/folder` reaches the PostgreSQL server through its Unix socket
 * (docs/decisions/062-unix-socket-to-postgresql.md): the app's pool and the job queue's both take their host from
 * databaseConnectionOptions. Server only: the embedded database is always reached through its own socket.
 */
describe.runIf(usingServer())('DATABASE_URL through the Unix socket', () => {
  test('connects to the same database without TCP (the server sees no client address)', async () => {
    const [setting] = await sql<{ folders: string; database: string }>(
      `select current_setting('unix_socket_directories') as folders, current_database() as database`,
    )
    const { folders, database } = setting!
    const folder = folders.split(',')[0]!.trim()
    const url = new URL(process.env.TEST_DATABASE_URL!)
    url.pathname = `/${database}`
    url.searchParams.set('host', folder)
    const sequelize = new Sequelize(databaseConnectionOptions(parseEnv({ DATABASE_URL: url.toString() })))
    try {
      const [row] = await sequelize.query<{ address: string | null; database: string }>(
        `select inet_client_addr()::text as address, current_database() as database`,
        { type: QueryTypes.SELECT },
      )
      expect(row).toEqual({ address: null, database })
    } finally {
      await sequelize.close()
    }
  })
})
