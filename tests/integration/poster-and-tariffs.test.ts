import { describe, expect, test } from 'vitest'
import { signedInOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'
import { pageText } from '#tests/support/page-text.ts'
import { useTestServer } from '#tests/support/test-server.ts'

/**
 * Issue 14, item 18: the poster's reward sentence for any reward text, and the pricing page's recommended and current
 * plans.
 */
const server = useTestServer()

const page = async (pathname: string, cookie: string) => pageText(await server.get(pathname, cookie))

describe('the poster', () => {
  test.each([
    ['A free coffee', 8],
    ['free coffee', 1],
    ['10% off your next order', 20],
    ['', 5],
  ])(
    'reward %j, %i stamps: the headline reads right and the reward keeps the owner’s words',
    async (reward, stamps) => {
      const owner = await signedInOwner(server)
      const [card] = await sql<{ id: string }>(
        `insert into cards (user_id, slug, status, title, business_name, reward, stamps_required)
       values (:userId, :slug, 'active', 'Coffee card', 'Corner Coffee', :reward, :stamps) returning id`,
        { userId: owner.id, slug: `poster-${Math.random().toString(36).slice(2, 10)}`, reward, stamps },
      )
      const html = await page(`/account/${card!.id}/poster`, owner.cookie)
      expect(html).toContain(
        `<h1 class="poster__title">Collect ${stamps} ${stamps === 1 ? 'stamp' : 'stamps'}, get a reward</h1>`,
      )
      if (reward) expect(html).toContain(`<p class="poster__reward">Your reward: ${reward}</p>`)
      else expect(html).not.toContain('poster__reward')
      expect(html).not.toMatch(/get A /)
      // Printing needs JavaScript: the server's page explains how, the button comes with hydration (tests/e2e).
      expect(html).toContain('Ctrl+P')
    },
  )
})

const planItem = (html: string, name: string) => {
  const item = [...html.matchAll(/<li class="(plan[^"]*)">([\s\S]*?)<\/form><\/li>/g)].find((match) =>
    match[2]!.includes(`>${name}<`),
  )
  expect(item, name).toBeTruthy()
  return { classes: item![1]!.split(' '), html: item![2]! }
}
const submitButtons = (html: string) =>
  [...html.matchAll(/<button type="submit"[^>]*class="([^"]+)"[^>]*>([^<]+)<\/button>/g)].map((m) => ({
    className: m[1],
    label: m[2],
  }))

describe('/account/tariffs', () => {
  test('in the trial: Standard is marked recommended and is the only plan with a filled button; no plan is current', async () => {
    const owner = await signedInOwner(server)
    const html = await page('/account/tariffs', owner.cookie)
    const standard = planItem(html, 'Standard')
    expect(standard.classes).toContain('plan--recommended')
    expect(standard.html).toContain('Recommended')
    expect(html).not.toContain('Current plan')
    const filled = ['Basic', 'Standard', 'Premium'].flatMap((name) =>
      submitButtons(planItem(html, name).html)
        .filter((button) => !button.className!.includes('button--ghost'))
        .map((button) => button.label),
    )
    expect(filled).toEqual(['Choose Standard yearly'])
    for (const name of ['Basic', 'Premium']) expect(planItem(html, name).classes).not.toContain('plan--recommended')
  })

  test('on an active plan: it is marked current, and its period is not for sale again but leads to its details', async () => {
    const owner = await signedInOwner(server)
    await sql(
      `update subscriptions set status = 'active', tariff_id = (select id from tariffs where tier = 1), period_months = 1,
         period_starts_at = now(), period_ends_at = now() + interval '30 days', trial_ends_at = now() - interval '1 day' where user_id = :id`,
      { id: owner.id },
    )
    const html = await page('/account/tariffs', owner.cookie)
    const basic = planItem(html, 'Basic')
    expect(basic.classes).toContain('plan--current')
    expect(basic.html).toContain('Current plan')
    expect(basic.html).toMatch(/<a[^>]+href="\/account\/plan"[^>]*>Your plan \(monthly\): details<\/a>/)
    expect(submitButtons(basic.html).map((button) => button.label)).toEqual(['Switch to yearly billing'])
    expect(planItem(html, 'Standard').html).not.toContain('Current plan')
    expect(submitButtons(planItem(html, 'Premium').html).map((button) => button.label)).toEqual([
      'Choose Premium monthly',
      'Choose Premium yearly',
    ])
  })
})
