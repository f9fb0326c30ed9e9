import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { runAutomations, type AutomationRun } from '#app/services/automations/automation-schedule.server.ts'
import { scheduleWelcome } from '#models/automatic-messages.server.ts'
import { sql } from '#tests/support/auth-api.ts'
import { addPass, automationCard, setAutomation } from '#tests/support/automation-fixture.ts'
import { killChildren, runTs } from '#tests/support/child-process.ts'

/*
 * Two schedules at once never make or send an occasion twice (issue 19): the unique key per holder and occasion,
 * and rows claimed with their pass `skip locked`, so the caps hold too. Each holder here has two messages due the
 * same day (a welcome and 'we miss you') against a daily cap of 1: exactly one goes, the other is skipped.
 */

afterEach(killChildren)

const HOLDERS = 80
const NOW = '2026-10-01T12:00:00Z'

async function dueHolders() {
  const { cardId } = await automationCard()
  await sql('update cards set quiet_start = 0, quiet_end = 0 where id = :cardId', { cardId })
  await setAutomation(cardId, 'we_miss_you', { days: 30 })
  await setAutomation(cardId, 'welcome')
  const passIds: string[] = []
  for (let holder = 0; holder < HOLDERS; holder++) {
    const pass = await addPass(cardId, { joinedAt: '2026-09-01T12:00:00Z' })
    await scheduleWelcome({ passId: pass.id, delaySeconds: 600 })
    passIds.push(pass.id)
  }
  return { cardId, passIds }
}

async function expectEachOnce(cardId: string, runs: AutomationRun[]) {
  const rows = await sql<{ pass_id: string; kind: string; status: string; skipped_reason: string | null }>(
    `select pass_id, kind, status, skipped_reason from notifications where card_id = :cardId`,
    { cardId },
  )
  expect(rows.filter((row) => row.kind === 'we_miss_you')).toHaveLength(HOLDERS)
  expect(rows.filter((row) => row.kind === 'welcome')).toHaveLength(HOLDERS)
  const byPass = new Map<string, typeof rows>()
  for (const row of rows) byPass.set(row.pass_id, [...(byPass.get(row.pass_id) ?? []), row])
  expect(byPass.size).toBe(HOLDERS)
  for (const passRows of byPass.values()) {
    expect(passRows.map((row) => `${row.status}:${row.skipped_reason}`).sort()).toEqual([
      'queued:null',
      'skipped:daily_cap',
    ])
  }
  const queued = runs.flatMap((run) => run.queued)
  expect(new Set(queued).size).toBe(queued.length)
  expect(queued).toHaveLength(HOLDERS)
  expect(runs.reduce((sum, run) => sum + run.created.we_miss_you, 0)).toBe(HOLDERS)
}

test('two runs in one process (two connections on the PostgreSQL server) make and send each occasion once', async () => {
  const { cardId } = await dueHolders()
  const runs = await Promise.all([
    runAutomations({ now: new Date(NOW), batch: 5 }),
    runAutomations({ now: new Date(NOW), batch: 7 }),
  ])
  await expectEachOnce(cardId, runs)
})

test('two other processes and this one at once make and send each occasion once', async () => {
  const { cardId } = await dueHolders()
  const env: Record<string, string> = process.env.DATABASE_URL
    ? { DATABASE_URL: process.env.DATABASE_URL }
    : { DATA_DIR: process.env.DATA_DIR! }
  // All three start at one moment, once the children are up and connected (on a busy machine that takes a while).
  const goFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sw-automation-go-')), 'go')
  const children = ['4', '6'].map((batch) =>
    runTs('tests/fixtures/automation-run.ts', { env, args: [NOW, batch, goFile] }),
  )
  await Promise.all(children.map((child) => child.waitForLine((text) => text === 'ready', 60_000)))
  fs.writeFileSync(goFile, '')
  const own = await runAutomations({ now: new Date(NOW), batch: 5 })
  const results = await Promise.all(
    children.map(async (child) => {
      const line = await child.waitForLine((text) => text.startsWith('result '), 60_000)
      return JSON.parse(line.slice('result '.length)) as AutomationRun
    }),
  )
  await expectEachOnce(cardId, [own, ...results])
  // The runs overlapped: more than one process did part of the work.
  const busy = [own, ...results].filter((run) => run.queued.length + run.created.we_miss_you > 0)
  expect(busy.length).toBeGreaterThan(1)
}, 90_000)
