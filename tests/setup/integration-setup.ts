import { afterAll } from 'vitest'
import { forgetSequelizeForTests } from '#app/server/db.server.ts'
import { resetEnvForTests } from '#app/server/env.server.ts'
import { createTestDatabase } from './test-database.ts'

// Top-level await: the database must exist and the environment point at it before the test file imports any
// model (models bind to the Sequelize instance when they are first imported).
const database = await createTestDatabase()
delete process.env.DATABASE_URL
Object.assign(process.env, database.env)
resetEnvForTests()
await forgetSequelizeForTests()

afterAll(async () => {
  await forgetSequelizeForTests()
  await database.drop()
})
