import crypto from 'node:crypto'
import { describe, expect, test } from 'vitest'
import { AUTOMATION_MESSAGES } from '#app/utils/automation-schemas.ts'
import { PUSH_MESSAGES } from '#app/utils/push-message.ts'
import { createOwner, signedInOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'
import { pageText } from '#tests/support/page-text.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/**
 * The automations page (/account/{cardId}/automations, issue 19): what a card has before its owner changes anything,
 * each form saved through post/redirect/get, bad input refused with the field's message and nothing stored, another
 * owner's card answered 404, and enabled_at set only when a message is turned on.
 */
const server = useTestServer()

async function createCard(userId: string, autoPush = true) {
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name, reward, stamps_required, auto_push)
     values (:userId, :slug, 'active', 'Coffee card', 'Corner Coffee', 'A free coffee', 8, :autoPush) returning id`,
    { userId, slug: `auto-${crypto.randomBytes(5).toString('hex')}`, autoPush },
  )
  return card!.id
}

const page = (cardId: string) => `/account/${cardId}/automations`

const automationRow = async (cardId: string, kind: string) =>
  (
    await sql<{ enabled: boolean; title: string; body: string; days: number | null; enabled_at: Date | null }>(
      `select enabled, title, body, days, enabled_at from card_automations where card_id = :cardId and kind = :kind`,
      { cardId, kind },
    )
  )[0]

const cardRules = async (cardId: string) =>
  (
    await sql<{
      auto_push: boolean
      quiet_start: number
      quiet_end: number
      automatic_daily_cap: number
      automatic_weekly_cap: number
    }>(
      `select auto_push, quiet_start, quiet_end, automatic_daily_cap, automatic_weekly_cap from cards where id = :cardId`,
      { cardId },
    )
  )[0]!

describe('the automations page', () => {
  test('shows the defaults: every message off except reward earned, its words, days, quiet hours and caps', async () => {
    const owner = await signedInOwner(server)
    await sql(`update users set time_zone = 'Europe/Berlin' where id = :id`, { id: owner.id })
    const cardId = await createCard(owner.id)
    const response = await server.get(page(cardId), owner.cookie)
    expect(response.status).toBe(200)
    const text = await pageText(response)
    expect(text).toContain('<h1>Automatic messages</h1>')
    for (const name of ['Welcome', 'One stamp to go', 'Reward earned', 'Reward waiting', 'We miss you', 'Stamp push'])
      expect(text).toContain(`>${name}</h2>`)
    // The default words, counters and previews, rendered on the server.
    expect(text).toContain('Welcome! Collect 8 stamps and get a free coffee.')
    expect(text).toContain('Reward earned: A free coffee')
    expect(text).toContain('We miss you! Come back soon and collect your next stamp.')
    expect(text).toContain('13 / 50')
    expect(text).toContain('When a holder has not visited for the days set (once per absence)')
    expect(text.match(/aria-label="Notification preview"/g)).toHaveLength(5)
    // Only reward earned is ticked, and the stamp push (cards.auto_push).
    const ticked = [...text.matchAll(/<input[^>]*type="checkbox"[^>]*>/g)].filter((match) =>
      match[0].includes('checked'),
    )
    expect(ticked.map((match) => /name="(\w+)"/.exec(match[0])![1])).toEqual(['enabled', 'stampPush', 'quietHours'])
    expect(text).toMatch(/name="days"[^>]*value="7"|value="7"[^>]*name="days"/)
    expect(text).toMatch(/value="30"/)
    expect(text).toContain('value="21:00"')
    expect(text).toContain('value="09:00"')
    expect(text).toContain('Europe/Berlin')
    expect(text).toContain('href="/account/profile"')
    expect(text).not.toContain('automatic messages are paused')
  })

  test('turning a message on saves its words and days and sets enabled_at; saving words of one still on keeps it', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    const before = Date.now()
    const response = await server.post(
      page(cardId),
      {
        intent: 'we_miss_you',
        enabled: 'on',
        days: '14',
        title: 'We miss you',
        body: 'Come back this week for a double stamp.',
      },
      owner.cookie,
    )
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toBe(page(cardId))
    const saved = (await automationRow(cardId, 'we_miss_you'))!
    expect(saved).toMatchObject({ enabled: true, title: 'We miss you', days: 14 })
    const enabledAt = new Date(saved.enabled_at!).getTime()
    expect(enabledAt).toBeGreaterThanOrEqual(before - 1000)

    // Still on, new words: enabled_at stays.
    await sql(`update card_automations set enabled_at = enabled_at - interval '3 days' where card_id = :cardId`, {
      cardId,
    })
    const kept = new Date((await automationRow(cardId, 'we_miss_you'))!.enabled_at!).getTime()
    expect(
      (
        await server.post(
          page(cardId),
          { intent: 'we_miss_you', enabled: 'on', days: '21', title: 'Still missing you', body: 'A coffee on us.' },
          owner.cookie,
        )
      ).status,
    ).toBe(302)
    expect(await automationRow(cardId, 'we_miss_you')).toMatchObject({ title: 'Still missing you', days: 21 })
    expect(new Date((await automationRow(cardId, 'we_miss_you'))!.enabled_at!).getTime()).toBe(kept)

    // Off: enabled_at keeps when it was last turned on; on again: now.
    await server.post(page(cardId), { intent: 'we_miss_you', days: '21', title: 'Off', body: 'Off' }, owner.cookie)
    expect(await automationRow(cardId, 'we_miss_you')).toMatchObject({ enabled: false })
    expect(new Date((await automationRow(cardId, 'we_miss_you'))!.enabled_at!).getTime()).toBe(kept)
    await server.post(
      page(cardId),
      { intent: 'we_miss_you', enabled: 'on', days: '21', title: 'On', body: 'On' },
      owner.cookie,
    )
    expect(new Date((await automationRow(cardId, 'we_miss_you'))!.enabled_at!).getTime()).toBeGreaterThan(kept)

    // Saved off from the start: no enabled_at. A kind without days stores none.
    await server.post(
      page(cardId),
      { intent: 'welcome', title: 'Hello', body: 'Welcome aboard', days: '9' },
      owner.cookie,
    )
    expect(await automationRow(cardId, 'welcome')).toMatchObject({ enabled: false, enabled_at: null, days: null })

    const text = await pageText(await server.get(page(cardId), owner.cookie))
    expect(text).toContain('value="Hello"')
    expect(text).toContain('Welcome aboard')
    expect(text).toMatch(/value="21"/)
  })

  test('the stamp push, quiet hours and caps save; none unticked stores start = end', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    expect((await server.post(page(cardId), { intent: 'stamp-push' }, owner.cookie)).status).toBe(302)
    expect((await cardRules(cardId)).auto_push).toBe(false)
    expect((await server.post(page(cardId), { intent: 'stamp-push', stampPush: 'on' }, owner.cookie)).status).toBe(302)
    expect((await cardRules(cardId)).auto_push).toBe(true)

    const rules = { intent: 'delivery-rules', quietHours: 'on', quietStart: '22:30', quietEnd: '07:15' }
    expect((await server.post(page(cardId), { ...rules, dailyCap: '0', weeklyCap: '2' }, owner.cookie)).status).toBe(
      302,
    )
    expect(await cardRules(cardId)).toMatchObject({
      quiet_start: 22 * 60 + 30,
      quiet_end: 7 * 60 + 15,
      automatic_daily_cap: 0,
      automatic_weekly_cap: 2,
    })
    const text = await pageText(await server.get(page(cardId), owner.cookie))
    expect(text).toContain('value="22:30"')
    expect(text).toContain('value="07:15"')

    const none = { intent: 'delivery-rules', quietStart: '22:30', quietEnd: '07:15', dailyCap: '1', weeklyCap: '3' }
    expect((await server.post(page(cardId), none, owner.cookie)).status).toBe(302)
    const stored = await cardRules(cardId)
    expect(stored.quiet_start).toBe(stored.quiet_end)
    expect(stored).toMatchObject({ automatic_daily_cap: 1, automatic_weekly_cap: 3 })
  })

  test('bad input: 400 with the field’s message, nothing saved', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    const refused = async (form: Record<string, string>, message: string) => {
      const response = await server.post(page(cardId), form, owner.cookie)
      expect(response.status, JSON.stringify(form)).toBe(400)
      expect(await pageText(response), JSON.stringify(form)).toContain(message)
    }
    const words = { title: 'Hello', body: 'Welcome' }
    await refused({ intent: 'welcome', enabled: 'on', title: 'x'.repeat(51), body: 'Hi' }, PUSH_MESSAGES.titleLong)
    await refused({ intent: 'welcome', title: 'Hi', body: 'x'.repeat(181) }, PUSH_MESSAGES.bodyLong)
    await refused({ intent: 'welcome', title: '  ', body: 'Hi' }, PUSH_MESSAGES.title)
    await refused({ intent: 'reward_waiting', ...words, days: '0' }, AUTOMATION_MESSAGES.days)
    await refused({ intent: 'we_miss_you', ...words, days: '366' }, AUTOMATION_MESSAGES.days)
    await refused({ intent: 'we_miss_you', ...words, days: '2.5' }, AUTOMATION_MESSAGES.days)
    await refused({ intent: 'we_miss_you', ...words }, AUTOMATION_MESSAGES.days)
    const rules = { intent: 'delivery-rules', dailyCap: '1', weeklyCap: '3' }
    await refused({ ...rules, quietHours: 'on', quietStart: '25:00', quietEnd: '07:00' }, AUTOMATION_MESSAGES.clock)
    await refused({ ...rules, quietHours: 'on', quietStart: '07:00', quietEnd: '07:00' }, AUTOMATION_MESSAGES.sameClock)
    await refused({ ...rules, weeklyCap: '4' }, AUTOMATION_MESSAGES.weeklyCap)
    await refused({ ...rules, dailyCap: '2' }, AUTOMATION_MESSAGES.dailyCap)
    await refused({ intent: 'stamp-push', stampPush: 'yes please' }, AUTOMATION_MESSAGES.box)
    await refused({ intent: 'welcome', enabled: 'yes', ...words }, AUTOMATION_MESSAGES.box)
    await refused({ intent: 'nothing' }, 'We could not understand that request')
    expect(await sql(`select 1 from card_automations where card_id = :cardId`, { cardId })).toEqual([])
    expect(await cardRules(cardId)).toEqual({
      auto_push: true,
      quiet_start: 1260,
      quiet_end: 540,
      automatic_daily_cap: 1,
      automatic_weekly_cap: 3,
    })
  })

  test('another owner’s card is 404 for the page and every form, and changes nothing', async () => {
    const owner = await signedInOwner(server)
    const foreign = await createCard((await createOwner()).id)
    expect((await server.get(page(foreign), owner.cookie)).status).toBe(404)
    expect((await server.get('/account/not-a-uuid/automations', owner.cookie)).status).toBe(404)
    for (const form of [
      { intent: 'welcome', enabled: 'on', title: 'Hi', body: 'Hi' },
      { intent: 'stamp-push' },
      { intent: 'delivery-rules', dailyCap: '0', weeklyCap: '0' },
    ] as Record<string, string>[]) {
      expect((await server.post(page(foreign), form, owner.cookie)).status).toBe(404)
    }
    expect(await sql(`select 1 from card_automations where card_id = :foreign`, { foreign })).toEqual([])
    expect(await cardRules(foreign)).toMatchObject({ auto_push: true, automatic_daily_cap: 1 })
  })

  test('after the plan ends the page stays and says automatic messages are paused', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    await sql(`update subscriptions set status = 'ended' where user_id = :id`, { id: owner.id })
    const response = await server.get(page(cardId), owner.cookie)
    expect(response.status).toBe(200)
    expect(await pageText(response)).toContain('automatic messages are paused until you')
    // Saving still works (the owner may prepare for when a plan is chosen).
    expect((await server.post(page(cardId), { intent: 'welcome', title: 'Hi', body: 'Hi' }, owner.cookie)).status).toBe(
      302,
    )
  })

  test('the card page and the push start page link here', async () => {
    const owner = await signedInOwner(server)
    const cardId = await createCard(owner.id)
    expect(await pageText(await server.get(`/account/${cardId}`, owner.cookie))).toContain(`href="${page(cardId)}"`)
    expect(await pageText(await server.get(`/account/${cardId}/push_notification`, owner.cookie))).toContain(
      `href="${page(cardId)}"`,
    )
    expect(await pageText(await server.get(`/account/${cardId}/push_notification/history`, owner.cookie))).toContain(
      `href="${page(cardId)}"`,
    )
  })
})
