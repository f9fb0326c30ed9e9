import { QueryTypes } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'

/** Values the application keeps for itself in the `settings` table (a generated VAPID key pair), as JSON by key. */

export async function readSetting<Value>(key: string): Promise<Value | null> {
  const [row] = await getSequelize().query<{ value: Value }>(`select value from settings where key = :key`, {
    replacements: { key },
    type: QueryTypes.SELECT,
  })
  return row ? row.value : null
}

/** Stores the value unless the key has one: two processes writing at once keep the first, and both read it back. */
export async function storeSettingOnce(key: string, value: unknown): Promise<void> {
  await getSequelize().query(`insert into settings (key, value) values (:key, :value) on conflict (key) do nothing`, {
    replacements: { key, value: JSON.stringify(value) },
  })
}
