import pg from 'pg'

/**
 * The schema of a database's public namespace as sorted text lines, one per table, column, constraint, index,
 * sequence, trigger and function, plus the rows that migrations seed: two databases built by the same migrations
 * must give the same lines.
 */

export type SchemaSnapshot = Record<string, string[]>

const QUERIES: Record<string, string> = {
  relations: `
    select c.relkind::text || ' ' || c.relname as line
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'm', 'S', 'f')
    order by c.relname`,
  columns: `
    select format('%s.%s %s %s default %s', table_name, column_name,
                  case when data_type = 'USER-DEFINED' then udt_name else data_type end ||
                    coalesce('(' || character_maximum_length || ')', ''),
                  case is_nullable when 'YES' then 'null' else 'not null' end,
                  coalesce(column_default, '-')) as line
    from information_schema.columns
    where table_schema = 'public'
    order by table_name, ordinal_position`,
  // contype 'n' (NOT NULL as a constraint) is listed by PostgreSQL 18 and not by 15; columns carry nullability.
  constraints: `
    select format('%s %s %s %s', conrelid::regclass, conname, contype, pg_get_constraintdef(oid)) as line
    from pg_constraint
    where connamespace = 'public'::regnamespace and contype <> 'n'
    order by conrelid::regclass::text, conname`,
  indexes: `
    select indexdef as line from pg_indexes where schemaname = 'public' order by tablename, indexname`,
  sequences: `
    select format('%s %s start %s increment %s min %s max %s cycle %s', sequencename, data_type, start_value,
                  increment_by, min_value, max_value, cycle) as line
    from pg_sequences where schemaname = 'public' order by sequencename`,
  triggers: `
    select pg_get_triggerdef(t.oid) as line
    from pg_trigger t join pg_class c on c.oid = t.tgrelid
    where c.relnamespace = 'public'::regnamespace and not t.tgisinternal
    order by c.relname, t.tgname`,
  functions: `
    select pg_get_functiondef(p.oid) as line
    from pg_proc p where p.pronamespace = 'public'::regnamespace
    order by p.proname`,
  tariffs: `
    select row(tier, name, monthly_price_cents, yearly_price_cents, card_limit, monthly_push_limit)::text as line
    from tariffs order by tier`,
  sharedTemplates: `
    select row(title, body, link)::text as line from templates where user_id is null order by title`,
}

/**
 * Whitespace only (function bodies keep their line breaks). PostgreSQL 15 and PGlite's 18 print every other
 * definition of our schema identically; add a rule here only for a difference that means nothing.
 */
function normalise(line: string) {
  return line.replace(/\s+/g, ' ').trim()
}

export async function snapshotSchema(
  config: pg.ClientConfig,
  sections = Object.keys(QUERIES),
): Promise<SchemaSnapshot> {
  const client = new pg.Client(config)
  await client.connect()
  try {
    const snapshot: SchemaSnapshot = {}
    for (const section of sections) {
      const { rows } = await client.query<{ line: string }>(QUERIES[section]!)
      snapshot[section] = rows.map((row) => normalise(row.line))
    }
    return snapshot
  } finally {
    await client.end()
  }
}

/** The lines only one side has, section by section, ready to print: empty when the snapshots agree. */
export function diffSnapshots(left: SchemaSnapshot, right: SchemaSnapshot, [leftName, rightName]: [string, string]) {
  const out: string[] = []
  for (const section of new Set([...Object.keys(left), ...Object.keys(right)])) {
    const a = left[section] ?? []
    const b = right[section] ?? []
    const onlyLeft = a.filter((line) => !b.includes(line))
    const onlyRight = b.filter((line) => !a.includes(line))
    const sameSetOtherOrder = !onlyLeft.length && !onlyRight.length && a.join('\n') !== b.join('\n')
    if (!onlyLeft.length && !onlyRight.length && !sameSetOtherOrder) continue
    out.push(`${section}:`)
    for (const line of onlyLeft) out.push(`  - only in ${leftName}: ${line}`)
    for (const line of onlyRight) out.push(`  + only in ${rightName}: ${line}`)
    if (sameSetOtherOrder) out.push(`  ~ same lines in another order (column order?)`)
  }
  return out
}
