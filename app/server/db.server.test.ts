import { describe, expect, test } from 'vitest'
import { databaseConnectionOptions } from './db.server.ts'
import { parseEnv } from './env.server.ts'

const optionsOf = (DATABASE_URL: string) => databaseConnectionOptions(parseEnv({ DATABASE_URL }))

describe('databaseConnectionOptions', () => {
  test('a server by address: its host, port, user, password and database', () => {
    expect(optionsOf('postgres://stamp%40er:p%2Fss@db.example.com:6543/stamp%20wise')).toMatchObject({
      host: 'db.example.com',
      port: 6543,
      username: 'stamp@er',
      password: 'p/ss',
      database: 'stamp wise',
    })
  })

  test("libpq's ?host= names the folder of the server's Unix socket, which node-postgres connects to", () => {
    expect(optionsOf('postgres://postgres@localhost/test?host=/var/run/postgresql')).toMatchObject({
      host: '/var/run/postgresql',
      port: 5432,
      username: 'postgres',
      database: 'test',
    })
  })

  test('without DATABASE_URL: the embedded database on the socket in DATA_DIR', () => {
    const options = databaseConnectionOptions(parseEnv({ DATA_DIR: '/srv/stampwise' }))
    expect(options).toMatchObject({ host: '/srv/stampwise', username: 'postgres', database: 'postgres' })
  })
})
