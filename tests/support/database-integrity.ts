import { sql } from './auth-api.ts'

/**
 * The database checks the bad-input fuzz runs around its requests: how many rows each table holds (a refused
 * request must leave every count as it was), and whether every foreign key and CHECK constraint still holds (no
 * orphan rows, no value a constraint forbids; PostgreSQL enforces them, so a failure here means one was dropped,
 * disabled or added NOT VALID).
 */

/**
 * Tables a refused request may change by design: a failed sign-in or a refused form counts against the caller's
 * rate limit there (rate-limit.server.ts).
 */
const BOOKKEEPING_TABLES = new Set(['rate_limit_counters'])

let countQuery: string | null = null

/** Row counts of every table of the app's schema but the bookkeeping ones, by table name. */
export async function rowCounts(): Promise<Record<string, number>> {
  if (!countQuery) {
    const tables = await sql<{ name: string }>(
      `select table_name as name from information_schema.tables
       where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`,
    )
    const counted = tables.map(({ name }) => name).filter((name) => !BOOKKEEPING_TABLES.has(name))
    countQuery = counted
      .map((name) => `select '${name}' as name, count(*)::int as count from "${name}"`)
      .join(' union all ')
  }
  const rows = await sql<{ name: string; count: number }>(countQuery)
  return Object.fromEntries(rows.map(({ name, count }) => [name, count]))
}

/** The tables whose counts differ, as `table: before → after`. */
export function countChanges(before: Record<string, number>, after: Record<string, number>): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)])
  return [...names]
    .filter((name) => before[name] !== after[name])
    .map((name) => `${name}: ${before[name]} → ${after[name]}`)
}

type Constraint = {
  name: string
  table: string
  kind: 'f' | 'c'
  definition: string
  columns: string[]
  parent: string | null
  parentColumns: string[]
}

/** Every foreign key and CHECK constraint of the schema, as SQL that counts the rows breaking it. */
async function constraintChecks() {
  const constraints = await sql<Constraint>(
    `select c.conname as name, c.conrelid::regclass::text as "table", c.contype as kind, pg_get_constraintdef(c.oid) as definition,
            array(select a.attname::text from unnest(c.conkey) with ordinality k(n, i) join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n order by k.i) as columns,
            c.confrelid::regclass::text as parent,
            array(select a.attname::text from unnest(c.confkey) with ordinality k(n, i) join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.n order by k.i) as "parentColumns"
     from pg_constraint c join pg_namespace n on n.oid = c.connamespace
     where n.nspname = current_schema() and c.contype in ('f', 'c')`,
  )
  return constraints.map(({ name, table, kind, definition, columns, parent, parentColumns }) => {
    if (kind === 'f') {
      const present = columns.map((column) => `child."${column}" is not null`).join(' and ')
      const matches = columns.map((column, i) => `parent."${parentColumns[i]}" = child."${column}"`).join(' and ')
      return {
        name: `${table}.${name} (foreign key to ${parent})`,
        query: `select count(*)::int as count from ${table} child where ${present} and not exists (select 1 from ${parent} parent where ${matches})`,
      }
    }
    const expression = definition.replace(/^CHECK /, '').replace(/ NOT VALID$/, '')
    return {
      name: `${table}.${name} (${definition})`,
      query: `select count(*)::int as count from ${table} where not ${expression}`,
    }
  })
}

/** The constraints some rows break, with how many rows; empty when the database is whole. */
export async function integrityProblems(): Promise<string[]> {
  const problems: string[] = []
  for (const { name, query } of await constraintChecks()) {
    const [row] = await sql<{ count: number }>(query)
    if (row!.count > 0) problems.push(`${name}: ${row!.count} rows break it`)
  }
  return problems
}
