/**
 * Part of `npm run build`: an initialised and migrated empty embedded database, written to
 * build/embedded-template.tar. A server starting on an empty DATA_DIR loads it instead of running initdb, which
 * takes several seconds on a small machine (start-up budget: the first page within 10 s).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import PgBoss from 'pg-boss'
import { Sequelize } from 'sequelize'
import { databaseConnectionOptions } from '#app/server/db.server.ts'
import { EMBEDDED_TEMPLATE_PATH, startEmbeddedDatabase } from '#app/server/embedded-db.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
import { migrateUp } from '#app/server/migrate.server.ts'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-template-'))
const embedded = await startEmbeddedDatabase(dir, { maxConnections: 4 })
try {
  const sequelize = new Sequelize(databaseConnectionOptions(parseEnv({ DATA_DIR: dir })))
  try {
    await migrateUp(sequelize)
    // pg-boss's own schema, so the first start of a new data folder does not spend its seconds creating it.
    await sequelize.query(PgBoss.getConstructionPlans())
  } finally {
    await sequelize.close()
  }
  const dump = await embedded.db.dumpDataDir('none')
  fs.mkdirSync(path.dirname(EMBEDDED_TEMPLATE_PATH), { recursive: true })
  fs.writeFileSync(EMBEDDED_TEMPLATE_PATH, Buffer.from(await dump.arrayBuffer()))
  console.log(
    `embedded database template: ${path.relative(process.cwd(), EMBEDDED_TEMPLATE_PATH)} (${Math.round(dump.size / 1024 / 1024)} MiB)`,
  )
} finally {
  await embedded.close()
  fs.rmSync(dir, { recursive: true, force: true })
}
