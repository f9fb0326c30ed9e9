import crypto from 'node:crypto'
import type pg from 'pg'

/**
 * What a database holds, to compare two of them: every row of every table of the public schema as JSON text
 * (sorted, so the order rows happen to be stored in does not matter), a checksum per table, and each sequence's
 * state. Times are rendered in UTC on both sides.
 */

export type TableRows = Record<string, string[]>

export async function readTableRows(client: pg.ClientBase): Promise<TableRows> {
  await client.query(`set time zone 'UTC'`)
  const { rows: tables } = await client.query<{ name: string }>(
    `select tablename as name from pg_tables where schemaname = 'public' order by tablename`,
  )
  const result: TableRows = {}
  for (const { name } of tables) {
    const { rows } = await client.query<{ row: string }>(`select row_to_json(t)::text as row from public."${name}" t`)
    result[name] = rows.map((row) => row.row).sort()
  }
  return result
}

/** Row count and an md5 of the sorted rows, per table. */
export function checksums(tables: TableRows) {
  return Object.fromEntries(
    Object.entries(tables).map(([name, rows]) => [
      name,
      { rows: rows.length, md5: crypto.createHash('md5').update(rows.join('\n')).digest('hex') },
    ]),
  )
}

export async function readSequences(client: pg.ClientBase) {
  const { rows } = await client.query<{ name: string; last_value: string | null }>(
    `select sequencename as name, last_value::text from pg_sequences where schemaname = 'public' order by sequencename`,
  )
  return Object.fromEntries(rows.map((row) => [row.name, row.last_value]))
}
