import pg from 'pg'

/**
 * Moves every row of the app's tables (the public schema) from one PostgreSQL database to another: the embedded
 * database to a server (npm run db:copy-to). The target has been migrated by the caller to the same schema.
 *
 * - The source is read in one REPEATABLE READ snapshot, so the copy is of one moment even if a server writes.
 * - The target is written in one transaction: a copy that fails or is interrupted leaves it as it was (empty), and
 *   running the command again starts over. An advisory lock keeps two copies from racing.
 * - Tables go parents first (foreign keys stay checked); user triggers are off while rows arrive, so triggers that
 *   stamp updated_at or bump content versions leave the copied values alone.
 * - Sequences (serial ids, the invoice numbers) get the source's exact state afterwards.
 * - tariffs and templates are seeded by migrations: the target's seeded rows are replaced by the source's.
 * pg-boss's own schema is not copied: its jobs are derived from these tables (decision 023).
 */

export const SEEDED_BY_MIGRATIONS = ['tariffs', 'templates']
const NOT_COPIED = new Set(['schema_migrations']) // each side records its own migrations
const COPY_LOCK_KEY = 724_061_023
const BATCH_ROWS = 200

const ident = (name: string) => pg.escapeIdentifier(name)

export class TargetNotEmptyError extends Error {
  constructor(readonly tables: string[]) {
    super(`the target database is not empty: ${tables.join(', ')} ${tables.length === 1 ? 'holds' : 'hold'} rows`)
  }
}

/** The app's tables, parents before children along foreign keys (self-references aside). */
export async function tablesInForeignKeyOrder(client: pg.ClientBase): Promise<string[]> {
  const tables = (
    await client.query<{ name: string }>(
      `select relname as name from pg_class where relnamespace = 'public'::regnamespace and relkind in ('r', 'p')
       order by relname`,
    )
  ).rows
    .map((row) => row.name)
    .filter((name) => !NOT_COPIED.has(name))
  const references = (
    await client.query<{ child: string; parent: string }>(
      `select child.relname as child, parent.relname as parent
       from pg_constraint c join pg_class child on child.oid = c.conrelid join pg_class parent on parent.oid = c.confrelid
       where c.contype = 'f' and c.connamespace = 'public'::regnamespace`,
    )
  ).rows.filter((row) => row.child !== row.parent)
  const ordered: string[] = []
  const left = new Set(tables)
  while (left.size) {
    const ready = [...left].filter((table) => !references.some((ref) => ref.child === table && left.has(ref.parent)))
    if (ready.length === 0) throw new Error(`foreign keys form a cycle among ${[...left].join(', ')}`)
    for (const table of ready) {
      ordered.push(table)
      left.delete(table)
    }
  }
  return ordered
}

/** Tables other than the migration-seeded ones that hold rows. */
export async function tablesWithRows(client: pg.ClientBase, tables: string[]) {
  const found: string[] = []
  for (const table of tables) {
    if (SEEDED_BY_MIGRATIONS.includes(table)) continue
    const { rows } = await client.query(`select 1 from public.${ident(table)} limit 1`)
    if (rows.length) found.push(table)
  }
  return found
}

async function insertableColumns(client: pg.ClientBase, table: string) {
  const { rows } = await client.query<{ name: string }>(
    `select attname as name from pg_attribute
     where attrelid = $1::regclass and attnum > 0 and not attisdropped and attgenerated = '' order by attnum`,
    [`public.${ident(table)}`],
  )
  return rows.map((row) => row.name)
}

/** Copies one table through a cursor, BATCH_ROWS rows at a time, as JSON (exact for every type the schema uses). */
async function copyTable(source: pg.ClientBase, target: pg.ClientBase, table: string) {
  const columns = (await insertableColumns(target, table)).map(ident).join(', ')
  const cursor = ident(`copy_${table}`)
  await source.query(
    `declare ${cursor} no scroll cursor for select row_to_json(t)::text as row from public.${ident(table)} t`,
  )
  let copied = 0
  for (;;) {
    const { rows } = await source.query<{ row: string }>(`fetch ${BATCH_ROWS} from ${cursor}`)
    if (rows.length === 0) break
    await target.query(
      `insert into public.${ident(table)} (${columns}) overriding system value
       select ${columns} from json_populate_recordset(null::public.${ident(table)}, $1::json)`,
      [`[${rows.map((row) => row.row).join(',')}]`],
    )
    copied += rows.length
  }
  await source.query(`close ${cursor}`)
  return copied
}

/** Gives every sequence of the target the source's state (next value included). */
async function copySequences(source: pg.ClientBase, target: pg.ClientBase) {
  const { rows } = await source.query<{ name: string; last_value: string | null; start_value: string }>(
    `select sequencename as name, last_value::text, start_value::text from pg_sequences where schemaname = 'public'`,
  )
  for (const sequence of rows) {
    await target.query(`select setval($1::regclass, $2::bigint, $3)`, [
      `public.${ident(sequence.name)}`,
      sequence.last_value ?? sequence.start_value,
      sequence.last_value !== null,
    ])
  }
  return rows.length
}

export type CopyResult = { tables: Record<string, number>; sequences: number }

/** Copies every row from `source` to the migrated, empty `target` (both connected; see the notes above). */
export async function copyDatabase(source: pg.ClientBase, target: pg.ClientBase): Promise<CopyResult> {
  await source.query('begin isolation level repeatable read read only')
  await target.query('begin')
  try {
    await target.query('select pg_advisory_xact_lock($1)', [COPY_LOCK_KEY])
    const tables = await tablesInForeignKeyOrder(source)
    const targetTables = await tablesInForeignKeyOrder(target)
    const missing = tables.filter((table) => !targetTables.includes(table))
    if (missing.length)
      throw new Error(`the target lacks tables ${missing.join(', ')}: are both at the same migration?`)
    // Also takes each table's lock, so nothing writes to the target while it is checked and filled.
    for (const table of tables) await target.query(`alter table public.${ident(table)} disable trigger user`)
    const holding = await tablesWithRows(target, targetTables)
    if (holding.length) throw new TargetNotEmptyError(holding)
    for (const table of [...tables].reverse()) {
      if (SEEDED_BY_MIGRATIONS.includes(table)) await target.query(`delete from public.${ident(table)}`)
    }
    const counts: Record<string, number> = {}
    for (const table of tables) counts[table] = await copyTable(source, target, table)
    const sequences = await copySequences(source, target)
    for (const table of tables) await target.query(`alter table public.${ident(table)} enable trigger user`)
    for (const table of tables) {
      const { rows } = await target.query<{ count: string }>(
        `select count(*)::text as count from public.${ident(table)}`,
      )
      if (Number(rows[0]!.count) !== counts[table]) {
        throw new Error(`${table}: ${rows[0]!.count} rows arrived of ${counts[table]} read`)
      }
    }
    await target.query('commit')
    return { tables: counts, sequences }
  } catch (error) {
    await target.query('rollback').catch(() => {})
    throw error
  } finally {
    await source.query('rollback').catch(() => {})
  }
}
