import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { getVapidKeys } from '#app/services/push/vapid.server.ts'
import { sql } from '#tests/support/auth-api.ts'
import { addressOf, buildAddresses, createAuthorizationRecords } from '#tests/support/authorization-fixture.ts'
import { startTestServer } from '#tests/support/test-server.ts'
import { AUTHORIZATION_TABLE, ROLES, type RecordName, type Role } from './authorization-table.ts'

/**
 * "No GET changes data" (conventions.md, docs/product/contracts.md), proven: every address of the build (the
 * authorization table's rows, which authorization.test.ts keeps equal to the build's routes), as a guest, owner A,
 * owner B and an admin, with owner A's real records, one GET at a time; every table's row count and a checksum of its
 * rows are read before and after each GET and must not move, nor between two GETs (a write a loader left running).
 */

/**
 * docs/product/contracts.md, "No GET changes data", by name: confirming an e-mail from the mailed link
 * (`/email-confirmed?token=`), and saving a pass to Google Wallet (`/p/{passId}/google-wallet`: it records the object
 * it made at Google; this walk runs with Google Wallet off, where it answers 404 and writes nothing, but it stays
 * spared for a run with it on).
 */
export const GET_EXCEPTIONS: Record<string, string> = {
  '/email-confirmed': '/email-confirmed?token=: the mailed link confirms the address on load',
  '/p/:passId/google-wallet': '/p/{passId}/google-wallet: saving the pass to Google Wallet',
}

type Snapshot = Record<string, { rows: number; md5: string | null }>
let snapshotQuery: string

/** Row count and an md5 of the sorted rows (as PostgreSQL prints them) of every table of the app's schema. */
async function snapshot(): Promise<Snapshot> {
  const rows = await sql<{ name: string; rows: number; md5: string | null }>(snapshotQuery)
  return Object.fromEntries(rows.map(({ name, rows, md5 }) => [name, { rows, md5 }]))
}

function changes(before: Snapshot, after: Snapshot): string[] {
  return Object.keys({ ...before, ...after })
    .filter((name) => before[name]?.rows !== after[name]?.rows || before[name]?.md5 !== after[name]?.md5)
    .map((name) =>
      before[name]?.rows === after[name]?.rows
        ? `${name}: rows changed (${after[name]?.rows} rows)`
        : `${name}: ${before[name]?.rows} → ${after[name]?.rows} rows`,
    )
}

let server: Awaited<ReturnType<typeof startTestServer>>
let records: Record<RecordName, string>
let cookies: Partial<Record<Role, string>>

beforeAll(async () => {
  server = await startTestServer()
  // As server.ts does at start: the Web Push key pair is made before any page needs it.
  await getVapidKeys()
  ;({ records, cookies } = await createAuthorizationRecords(server))
  const tables = await sql<{ name: string }>(
    `select table_name as name from information_schema.tables
     where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`,
  )
  snapshotQuery = tables
    .map(
      ({ name }) =>
        `select '${name}' as name, count(*)::int as rows, md5(string_agg(t::text, E'\\n' order by t::text)) as md5 from "${name}" t`,
    )
    .join(' union all ')
})

afterAll(async () => {
  await server?.close()
})

describe('no GET changes data', () => {
  test(
    'every GET of the build, as every role, leaves every table as it was (but the named exceptions)',
    { timeout: 300_000 },
    async () => {
      const addresses = await buildAddresses()
      const walked = new Set(AUTHORIZATION_TABLE.map((row) => row.route))
      expect(
        [...addresses.keys()].filter((address) => !walked.has(address)),
        'routes of the build the walk would miss',
      ).toEqual([])

      const problems: string[] = []
      let last = { what: 'the records were made', tables: await snapshot() }
      for (const row of AUTHORIZATION_TABLE) {
        for (const role of ROLES) {
          const address = addressOf(row, records)
          const what = `GET ${address} as ${role}`
          const before = await snapshot()
          for (const change of changes(last.tables, before))
            problems.push(`after ${last.what}, before the next GET: ${change}`)
          const response = await server.fetch(address, { headers: cookies[role] ? { Cookie: cookies[role] } : {} })
          await response.arrayBuffer()
          const after = await snapshot()
          if (!(row.route in GET_EXCEPTIONS))
            for (const change of changes(before, after)) problems.push(`${what} (${response.status}): ${change}`)
          last = { what, tables: after }
        }
      }
      expect(problems).toEqual([])
    },
  )
})
