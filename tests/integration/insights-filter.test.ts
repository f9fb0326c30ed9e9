import crypto from 'node:crypto'
import { describe, expect, test } from 'vitest'
import { cardInsights } from '#app/services/insights/card-insights.server.ts'
import { signedInOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'
import { createLocation, createStaffMember } from '#tests/support/staff-member.ts'
import { seedHistoryCard, seedPass } from '#tests/support/stamp-history.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/*
 * The card page's insights by location and person (issue 20 item 5), against figures worked out by hand, with a
 * fixed clock in Pacific/Auckland: 2026-11-26 22:00 UTC is Friday 27 November 11:00 there (+13:00). The 7-day range
 * is 21–27 November local, the one before 14–20 November. Stamps required: 3.
 *
 *   A: Anna at Main Street stamps 17 Nov 14:00 (before); 25 Nov 14:00; 2 stamps 26 Nov 14:00 (3 of 3); you redeem at
 *      Main Street 26 Nov 17:00.
 *   B: you stamp with no location 26 Nov 15:00; Anna stamps at Harbour 26 Nov 16:00 and undoes it a minute on.
 */
const server = useTestServer()
const NOW = new Date('2026-11-26T22:00:00Z')
const ZONE = 'Pacific/Auckland'

/** An event as the stamping statement writes it, at a chosen time, by `actorId` at `locationId`. */
async function eventAt(
  pass: { id: string },
  kind: 'stamp' | 'undo' | 'redeem',
  at: string,
  { count = 1, actorId, locationId = null }: { count?: number; actorId: string; locationId?: string | null },
) {
  await sql(
    `with target as (
       select p.id, p.card_id, c.stamps_required from passes p join cards c on c.id = p.card_id where p.id = :passId
     ), updated as (
       update passes p set
         stamps = greatest(p.stamps + case :kind when 'stamp' then :count when 'undo' then - :count
                                             else -t.stamps_required end, 0),
         rewards_redeemed = p.rewards_redeemed + case when :kind = 'redeem' then 1 else 0 end,
         last_visit_at = case when :kind = 'undo' then p.last_visit_at else cast(:at as timestamptz) end
       from target t where p.id = t.id returning p.id
     )
     insert into stamp_events (pass_id, card_id, actor_id, location_id, kind, count, created_at)
     select t.id, t.card_id, :actorId, cast(:locationId as uuid), :kind, case when :kind = 'redeem' then 1 else :count end, :at
     from target t, updated`,
    { passId: pass.id, kind, count, at, actorId, locationId },
  )
}

async function seedFilteredHistory() {
  const owner = await signedInOwner(server)
  const card = await seedHistoryCard(owner.id, { stampsRequired: 3, timeZone: ZONE })
  const main = await createLocation(owner.id, { name: 'Main Street', address: '1 Main Street' })
  const harbour = await createLocation(owner.id, { name: 'Harbour', address: '2 Quay' })
  const anna = await createStaffMember(owner.id, { name: 'Anna', locationIds: [main.id, harbour.id] })
  const a = await seedPass(card.id, '2026-11-10T01:00:00Z')
  const b = await seedPass(card.id, '2026-11-11T01:00:00Z')
  const you = { actorId: owner.id }
  const annaAt = (location: { id: string }) => ({ actorId: anna.id, locationId: location.id })
  await eventAt(a, 'stamp', '2026-11-17T01:00:00Z', annaAt(main))
  await eventAt(a, 'stamp', '2026-11-25T01:00:00Z', annaAt(main))
  await eventAt(a, 'stamp', '2026-11-26T01:00:00Z', { ...annaAt(main), count: 2 })
  await eventAt(b, 'stamp', '2026-11-26T02:00:00Z', you)
  await eventAt(b, 'stamp', '2026-11-26T03:00:00Z', annaAt(harbour))
  await eventAt(b, 'undo', '2026-11-26T03:01:00Z', annaAt(harbour))
  await eventAt(a, 'redeem', '2026-11-26T04:00:00Z', { ...you, locationId: main.id })
  return { owner, card, main, harbour, anna }
}

const figures = (items: { key: string; value: string; change: string }[]) =>
  Object.fromEntries(items.map((item) => [item.key, `${item.value} (${item.change})`]))

describe('the insights filtered by location and person', () => {
  test('each filter’s figures, chart and visits by hour, from the events of that person and place', async () => {
    const { owner, card, main, harbour, anna } = await seedFilteredHistory()
    const scope = { cardId: card.id, userId: owner.id }
    const insights = (filter: { person?: string; location?: string }) => cardInsights(scope, '7d', NOW, filter)

    const unfiltered = await insights({})
    expect(unfiltered.filtered).toBe(false)
    expect(figures(unfiltered.items)).toMatchObject({ stamps: '4 (+300%)', activeHolders: '2 (+100%)' })

    const byAnna = await insights({ person: anna.id })
    expect(byAnna.filtered).toBe(true)
    // Only the figures an event makes; B's stamp at Harbour was undone.
    expect(figures(byAnna.items)).toEqual({
      activeHolders: '1 (no change)',
      stamps: '3 (+200%)',
      rewardsRedeemed: '0 (no change)',
      returningRate: '100% (+100 pts)',
    })
    expect(byAnna.days.filter((day) => day.stamps > 0)).toEqual([
      { day: '2026-11-25', stamps: 1, newHolders: 0 },
      { day: '2026-11-26', stamps: 2, newHolders: 0 },
    ])
    expect(byAnna.days).toHaveLength(7)
    // Wednesday and Thursday 14:00 in Auckland.
    expect(byAnna.hours.sort((x, y) => x.weekday - y.weekday)).toEqual([
      { weekday: 2, hour: 14, visits: 1 },
      { weekday: 3, hour: 14, visits: 1 },
    ])

    expect(figures((await insights({ person: 'owner' })).items)).toEqual({
      activeHolders: '2 (up from 0)',
      stamps: '1 (up from 0)',
      rewardsRedeemed: '1 (up from 0)',
      returningRate: '0% (—)',
    })
    expect(figures((await insights({ location: main.id })).items)).toEqual({
      activeHolders: '1 (no change)',
      stamps: '3 (+200%)',
      rewardsRedeemed: '1 (up from 0)',
      returningRate: '100% (+100 pts)',
    })
    expect(figures((await insights({ location: harbour.id })).items)).toEqual({
      activeHolders: '0 (no change)',
      stamps: '0 (no change)',
      rewardsRedeemed: '0 (no change)',
      returningRate: '— (—)',
    })
    expect(figures((await insights({ location: 'none' })).items)).toMatchObject({ stamps: '1 (up from 0)' })
    // Both filters at once: your redemption at Main Street, and no stamp.
    const youAtMain = await insights({ person: 'owner', location: main.id })
    expect(figures(youAtMain.items)).toEqual({
      activeHolders: '1 (up from 0)',
      stamps: '0 (no change)',
      rewardsRedeemed: '1 (up from 0)',
      returningRate: '— (—)',
    })
    expect(youAtMain.hours).toEqual([{ weekday: 3, hour: 17, visits: 1 }])
    // Everyone's stamps are the sum of each person's.
    const stampsOf = async (person: string) =>
      Number((await insights({ person })).items.find((item) => item.key === 'stamps')!.value)
    expect((await stampsOf(anna.id)) + (await stampsOf('owner')) + (await stampsOf('support'))).toBe(4)
  })

  test('the card page: the form, the line saying what is left out, the range kept, bad values a 400', async () => {
    const { owner, card, main, anna } = await seedFilteredHistory()
    const get = (query: string, cookie = owner.cookie) =>
      server.fetch(`/account/${card.id}${query}`, { headers: { Cookie: cookie } })

    const plain = await get('')
    expect(plain.status).toBe(200)
    const plainHtml = await plain.text()
    expect(plainHtml).toContain('Filter insights')
    expect(plainHtml).toContain(`<option value="${anna.id}">Anna</option>`)
    expect(plainHtml).toContain('Stamps and new holders per day')

    const filtered = await get(`?range=90d&person=${anna.id}&location=${main.id}`)
    expect(filtered.status).toBe(200)
    const html = (await filtered.text()).replaceAll('<!-- -->', '')
    expect(html).toContain('Showing the visits, stamps and redemptions by Anna at Main Street.')
    expect(html).toContain('Stamps per day')
    expect(html).not.toContain('Time to reward')
    expect(html).not.toContain('New holders (')
    // The range switch keeps the filter; the filter form keeps the range.
    expect(html).toContain(`href="/account/${card.id}?range=7d&amp;person=${anna.id}&amp;location=${main.id}"`)
    expect(html).toMatch(/<input type="hidden" name="range" value="90d"\/>/)

    for (const [query, message] of [
      ['?person=nobody', 'Choose a person from the list'],
      [`?location=${crypto.randomUUID()}`, 'Choose a location from the list'],
    ] as const) {
      const bad = await get(query)
      expect(bad.status, query).toBe(400)
      const badHtml = await bad.text()
      expect(badHtml).toContain(message)
      // Shown unfiltered.
      expect(badHtml).toContain('Stamps and new holders per day')
    }

    // Another owner's staff member or location is not one of this owner's: 400, and their card page is theirs.
    const other = await signedInOwner(server)
    const [otherCard] = await sql<{ id: string }>(
      `insert into cards (user_id, slug, status, title, business_name, stamps_required)
       values (:userId, :slug, 'active', 'Tea card', 'Tea House', 5) returning id`,
      { userId: other.id, slug: `filter-${crypto.randomUUID().slice(0, 8)}` },
    )
    const foreign = await server.fetch(`/account/${otherCard!.id}?person=${anna.id}`, {
      headers: { Cookie: other.cookie },
    })
    expect(foreign.status).toBe(400)
    expect(await foreign.text()).toContain('Choose a person from the list')
    // An owner without staff or locations sees no filter.
    expect(
      await (await server.fetch(`/account/${otherCard!.id}`, { headers: { Cookie: other.cookie } })).text(),
    ).not.toContain('Filter insights')
  })
})
