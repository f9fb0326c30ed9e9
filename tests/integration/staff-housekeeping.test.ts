import { expect, test } from 'vitest'
import { runPlanHousekeeping } from '#app/services/billing/plan-housekeeping.server.ts'
import { listOwnersWithSuspendedStaff } from '#models/staff.server.ts'
import { createOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'
import { createStaffMember } from '#tests/support/staff-member.ts'

/*
 * The housekeeping job re-fits every owner with suspended staff, a page after another (issue 20's review: a single
 * unordered page of 500 could leave the same owners out run after run).
 */

async function ownerWithSuspendedMember() {
  const owner = await createOwner()
  const member = await createStaffMember(owner.id)
  await sql(`update users set suspended_at = now() where id = :id`, { id: member.id })
  return { ownerId: owner.id, memberId: member.id }
}

test('owners with suspended staff are listed in id order, a page after another', async () => {
  const made = await Promise.all([ownerWithSuspendedMember(), ownerWithSuspendedMember(), ownerWithSuspendedMember()])
  const ours = new Set(made.map((one) => one.ownerId))
  const seen: string[] = []
  for (let afterOwnerId: string | null = null; ;) {
    const page = await listOwnersWithSuspendedStaff({ afterOwnerId, limit: 1 })
    if (!page.length) break
    seen.push(...page)
    afterOwnerId = page.at(-1)!
  }
  expect(seen.filter((id) => ours.has(id))).toEqual([...ours].sort())
  expect(new Set(seen).size).toBe(seen.length)
})

test('a run gives a suspended member their seat back once the team fits (a trial has 2 seats)', async () => {
  const { ownerId, memberId } = await ownerWithSuspendedMember()
  const { refitted } = await runPlanHousekeeping()
  expect(refitted).toBeGreaterThanOrEqual(1)
  const [row] = await sql<{ suspended_at: Date | null }>(`select suspended_at from users where id = :id`, {
    id: memberId,
  })
  expect(row!.suspended_at).toBeNull()
  expect(await listOwnersWithSuspendedStaff()).not.toContain(ownerId)
})
