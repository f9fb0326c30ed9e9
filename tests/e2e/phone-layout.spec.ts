import crypto from 'node:crypto'
import { createCard, createOwner, signIn, sql } from '#tests/support/e2e-database.ts'
import { measureWidth, PHONE_WIDTHS } from '#tests/support/page-width.ts'
import { expect, expectPageError, failedLoad, test, type Locator, type Page } from '#tests/support/test.ts'

/*
 * Issue #14, phones (item 12, and of item 18 the chart's dates and the stray bullets), with and without JavaScript.
 * The walk over every page at 360 and 390 px is in accessibility.spec.ts (it shares that walk's page loads); this
 * file checks what a width alone cannot: the account header's tools stay on the screen and work there, the chart's
 * date labels do not run into each other, and lists of links and buttons show no bullets.
 */

/** The element's box lies wholly inside the viewport (not merely reachable by scrolling sideways). */
async function expectOnScreen(locator: Locator, page: Page, what: string) {
  const box = await locator.boundingBox()
  const width = page.viewportSize()!.width
  expect(box, `${what} is shown`).not.toBeNull()
  const inside = box!.x >= -0.5 && box!.x + box!.width <= width + 0.5
  expect(
    inside,
    `${what} (x ${box!.x.toFixed(1)} to ${(box!.x + box!.width).toFixed(1)}) inside a ${width} px screen`,
  ).toBe(true)
}

const HEADER_STATES = [
  { name: 'on trial', fields: null },
  {
    name: 'with a plan name',
    fields: `status = 'active', tariff_id = (select id from tariffs where tier = 3), period_months = 12,
             trial_ends_at = now() - interval '60 days', period_starts_at = now() - interval '10 days', period_ends_at = now() + interval '200 days'`,
  },
] as const

for (const state of HEADER_STATES) {
  test(`account header ${state.name}: plan box, Feedback, bell and profile menu on a 360 and a 390 px screen, and they open there`, async ({
    page,
  }) => {
    const owner = await createOwner('phone-header')
    if (state.fields) await sql(`update subscriptions set ${state.fields} where user_id = $1`, [owner.id])
    // An unread notice, so the bell carries its badge (the widest the bell gets).
    await sql(
      `insert into notices (user_id, kind, message, dedupe_key) values ($1, 'first_holder', 'Your first holder joined', 'phone-1')`,
      [owner.id],
    )
    await signIn(page, owner)
    await page.setViewportSize({ width: 360, height: 740 })
    await page.goto('/account')
    const header = page.locator('.account-header')
    const planBox = header.locator('.plan-box')
    const bell = header.locator('.notification-bell > summary')
    const profile = header.locator('.profile-menu > summary')
    const feedback = header.locator('.feedback-sender > summary')

    for (const width of PHONE_WIDTHS) {
      expect(await measureWidth(page, width), `the page at ${width} px`).toMatchObject({ beyondRightEdge: [] })
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `no sideways scroll at ${width} px`).toBe(
        width,
      )
      await expectOnScreen(planBox, page, 'the plan box')
      await expectOnScreen(planBox.getByRole('link', { name: 'View plans' }), page, "the plan box's View plans")
      await expectOnScreen(feedback, page, 'the Feedback button')
      await expectOnScreen(bell, page, 'the bell')
      await expectOnScreen(profile, page, 'the profile photo')
      // The unread badge sits on the bell, not somewhere else in the header.
      const [badgeBox, bellBox] = [
        await bell.locator('.notification-bell__badge').boundingBox(),
        await bell.boundingBox(),
      ]
      expect(badgeBox!.x + badgeBox!.width / 2, 'the badge over the bell').toBeGreaterThan(bellBox!.x)
      expect(badgeBox!.x + badgeBox!.width / 2, 'the badge over the bell').toBeLessThan(bellBox!.x + bellBox!.width)
      // The plan's name reads on one line (it broke into four when the tools were squeezed into one row).
      const title = planBox.locator('.plan-box__title')
      const lines = await title.evaluate((element) =>
        Math.round(element.getBoundingClientRect().height / parseFloat(getComputedStyle(element).lineHeight)),
      )
      expect(lines, `lines of "${await title.textContent()}"`).toBe(1)

      // Each popover opens inside the screen, and what it offers can be clicked there.
      await bell.click()
      await expectOnScreen(header.locator('.notification-bell__panel'), page, 'the notifications panel')
      await expectOnScreen(header.getByRole('link', { name: 'See all notifications' }), page, 'See all notifications')
      await bell.click()
      await feedback.click()
      await expectOnScreen(header.locator('.feedback-sender__panel'), page, 'the feedback panel')
      await expectOnScreen(header.getByRole('textbox', { name: 'Your feedback' }), page, 'the feedback field')
      await feedback.click()
      await profile.click()
      const menu = page.getByRole('navigation', { name: 'Profile' })
      await expectOnScreen(menu, page, 'the profile menu')
      await expectOnScreen(menu.getByRole('button', { name: 'Log Out' }), page, 'Log Out')
      await profile.click()
      await expect(menu).toBeHidden()
    }

    // Desktop keeps one row: the tools sit beside the logo.
    await page.setViewportSize({ width: 1280, height: 800 })
    const [brandBox, bellBox] = [await header.locator('.account-header__brand').boundingBox(), await bell.boundingBox()]
    expect(
      Math.abs(brandBox!.y + brandBox!.height / 2 - (bellBox!.y + bellBox!.height / 2)),
      'logo and bell on one row at 1280 px',
    ).toBeLessThan(12)
    await page.getByRole('link', { name: 'View plans' }).click()
    await expect(page).toHaveURL('/account/tariffs')
  })
}

/** A date under the chart: 'Nov 26' (or 'MM-DD', as the labels read before). */
const DATE_LABEL = /^(\d{2}-\d{2}|[A-Z][a-z]{2} \d{1,2})$/

for (const width of [360, 1280]) {
  test(`card page chart at ${width} px, every range: the date labels are on screen and none overlaps another`, async ({
    page,
  }) => {
    const owner = await createOwner('phone-chart')
    const card = await createCard(owner.id)
    await signIn(page, owner)
    await page.setViewportSize({ width, height: 900 })
    for (const range of ['', '?range=7d', '?range=90d', '?range=12m']) {
      await page.goto(`/account/${card.id}${range}`)
      // Nothing scrolls sideways, the heat map's 24 hours included.
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `${range} fits`).toBeLessThanOrEqual(
        width,
      )
      const labels = page.locator('.activity-chart').getByText(DATE_LABEL)
      await expect(labels.first()).toBeVisible()
      const boxes = await Promise.all(
        (await labels.all()).map(async (label) => ({
          text: await label.textContent(),
          box: (await label.boundingBox())!,
        })),
      )
      expect(boxes.length, 'date labels under the chart').toBeGreaterThanOrEqual(3)
      for (const [index, { text, box }] of boxes.entries()) {
        expect(box.x, `${text} starts on screen`).toBeGreaterThanOrEqual(0)
        expect(box.x + box.width, `${text} ends on screen`).toBeLessThanOrEqual(width)
        // Readable: not squeezed below the size of small print.
        expect(box.height, `${text} is tall enough to read`).toBeGreaterThanOrEqual(10)
        for (const other of boxes.slice(index + 1)) {
          const apart =
            box.x + box.width <= other.box.x ||
            other.box.x + other.box.width <= box.x ||
            box.y + box.height <= other.box.y ||
            other.box.y + other.box.height <= box.y
          expect(
            apart,
            `"${text}" (x ${box.x.toFixed(1)}–${(box.x + box.width).toFixed(1)}) and "${other.text}" (x ${other.box.x.toFixed(1)}–${(other.box.x + other.box.width).toFixed(1)}) do not overlap`,
          ).toBe(true)
        }
      }
    }
  })
}

/** The list items in the page's main content that show a marker (a bullet or a number). */
const itemsWithMarkers = (page: Page) =>
  page
    .locator('main li')
    .evaluateAll((items) =>
      items
        .filter(
          (item) => getComputedStyle(item).display === 'list-item' && getComputedStyle(item).listStyleType !== 'none',
        )
        .map(
          (item) =>
            `${item.parentElement?.tagName.toLowerCase()}.${item.parentElement?.className} > li "${item.textContent?.trim().slice(0, 40)}"`,
        ),
    )

test('no stray list bullets: the QR page (downloads and poster) and the 404 page (the way-back links)', async ({
  page,
}) => {
  expectPageError(failedLoad(404, '/no-such-page'))
  const owner = await createOwner('phone-bullets')
  const card = await createCard(owner.id)
  await signIn(page, owner)
  await page.goto(`/account/${card.id}/qr_code`)
  await expect(page.getByRole('link', { name: /poster/i }).first()).toBeVisible()
  expect(await itemsWithMarkers(page), 'list items with markers on the QR page').toEqual([])
  expect((await page.goto('/no-such-page'))?.status()).toBe(404)
  await expect(page.getByRole('main').getByRole('link', { name: 'Stampwise home' })).toBeVisible()
  expect(await itemsWithMarkers(page), 'list items with markers on the 404 page').toEqual([])
})

test('a message counted per channel (web push and Apple Wallet): its history and progress fit 360 and 390 px', async ({
  page,
}) => {
  const owner = await createOwner('phone-channels')
  const card = await createCard(owner.id)
  const [message] = await sql<{ id: string }>(
    `insert into notifications (card_id, user_id, title, body, status, queued_at, quota_source, recipients)
     values ($1, $2, 'Double stamps all weekend long', 'Two stamps for every coffee until Sunday', 'sending', now(),
       'monthly', 1111) returning id`,
    [card.id, owner.id],
  )
  // Wide numbers: the longest lines these counts make.
  for (const [status, count] of [
    ['sent', 420],
    ['failed', 180],
    ['pending', 9],
  ] as const) {
    await sql(
      `insert into deliveries (notification_id, status, attempts) select $1, $2, 1 from generate_series(1, $3::int)`,
      [message!.id, status, count],
    )
    await sql(
      `insert into apple_pushes (push_token, notification_id, status) select 'ab12', $1, $2 from generate_series(1, $3::int)`,
      [message!.id, status, count + 1],
    )
  }
  await signIn(page, owner)
  for (const path of [
    `/account/${card.id}/push_notification/history`,
    `/account/${card.id}/push_notification/confirm/${message!.id}`,
  ]) {
    await page.setViewportSize({ width: 360, height: 740 })
    await page.goto(path)
    await expect(page.getByText('Apple Wallet: 421', { exact: false }).first()).toBeVisible()
    for (const width of PHONE_WIDTHS) {
      expect(await measureWidth(page, width), `${path} at ${width} px`).toMatchObject({ beyondRightEdge: [] })
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `no sideways scroll at ${width} px`).toBe(
        width,
      )
    }
    // The channel lines are plain lines, without bullets.
    const markers = await page
      .locator('.history-channels li, .push-channels li')
      .evaluateAll((items) => items.map((item) => getComputedStyle(item).listStyleType))
    expect(markers.length).toBeGreaterThan(0)
    expect(markers.filter((marker) => marker !== 'none')).toEqual([])
  }
})

test('scheduling: the confirm page with its audience and time, and the scheduled list, fit 360 and 390 px', async ({
  page,
}) => {
  const owner = await createOwner('phone-scheduled')
  const card = await createCard(owner.id)
  await sql(`update users set time_zone = 'America/Argentina/Buenos_Aires' where id = $1`, [owner.id])
  const [draft] = await sql<{ id: string }>(
    `insert into notifications (card_id, user_id, title, body) values ($1, $2, 'Double stamps all weekend long',
       'Two stamps for every coffee until Sunday, and a free pastry with every third visit') returning id`,
    [card.id, owner.id],
  )
  await sql(
    `insert into notifications (card_id, user_id, title, body, status, scheduled_for, audience)
     values ($1, $2, 'Double stamps all weekend long', $3, 'scheduled', now() + interval '30 days', 'reward_waiting')`,
    [
      card.id,
      owner.id,
      'Two stamps for every coffee until Sunday, and a free pastry with every third visit. '.repeat(2),
    ],
  )
  await signIn(page, owner)
  for (const [path, shown] of [
    [`/account/${card.id}/push_notification/confirm/${draft!.id}?audience=one_to_go`, 'Date and time'],
    [`/account/${card.id}/push_notification/scheduled`, 'Reward waiting'],
  ] as const) {
    await page.setViewportSize({ width: 360, height: 740 })
    await page.goto(path)
    await expect(page.getByText(shown).first()).toBeVisible()
    for (const width of PHONE_WIDTHS) {
      expect(await measureWidth(page, width), `${path} at ${width} px`).toMatchObject({ beyondRightEdge: [] })
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `no sideways scroll at ${width} px`).toBe(
        width,
      )
    }
  }
})

test('holders list and a holder’s history, reached every way, fit 360 and 390 px (the table scrolls in its own region)', async ({
  page,
}) => {
  const owner = await createOwner('phone-holders')
  const card = await createCard(owner.id)
  const [pass] = await sql<{ id: string }>(
    `insert into passes (card_id, short_code, stamps, rewards_redeemed) values ($1, $2, 7, 12) returning id`,
    [card.id, Array.from(crypto.randomBytes(8), (byte) => 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'[byte % 32]).join('')],
  )
  await sql(
    `insert into push_subscriptions (pass_id, endpoint, p256dh, auth) values ($1, 'https://fcm.googleapis.com/fcm/send/p', 'k', 'a')`,
    [pass!.id],
  )
  await sql(`insert into apple_devices (id, push_token) values ($1, 'ab12')`, [`phone-${pass!.id}`])
  await sql(`insert into apple_registrations (device_id, pass_id) values ($1, $2)`, [`phone-${pass!.id}`, pass!.id])
  await sql(`insert into google_wallet_objects (pass_id, card_id) values ($1, $2)`, [pass!.id, card.id])
  await signIn(page, owner)
  for (const path of [`/account/${card.id}/holders`, `/account/${card.id}/holders/${pass!.id}`]) {
    await page.setViewportSize({ width: 360, height: 740 })
    await page.goto(path)
    await expect(page.getByText('Web push, Apple Wallet, Google Wallet').first()).toBeVisible()
    for (const width of PHONE_WIDTHS) {
      expect(await measureWidth(page, width), `${path} at ${width} px`).toMatchObject({ beyondRightEdge: [] })
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `no sideways scroll at ${width} px`).toBe(
        width,
      )
    }
  }
})

test('automatic messages: the settings page and the history’s days of automatic messages fit 360 and 390 px', async ({
  page,
}) => {
  const owner = await createOwner('phone-automations')
  const card = await createCard(owner.id, { businessName: 'The Corner Coffee House on Long Street' })
  await sql(`update users set time_zone = 'America/Argentina/Buenos_Aires' where id = $1`, [owner.id])
  const [pass] = await sql<{ id: string }>(`insert into passes (card_id, short_code) values ($1, $2) returning id`, [
    card.id,
    Array.from(crypto.randomBytes(8), (byte) => 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'[byte % 32]).join(''),
  ])
  const [welcome] = await sql<{ id: string }>(
    `insert into notifications (card_id, user_id, pass_id, kind, title, body, status, counts_toward_quota, queued_at)
     values ($1, $2, $3, 'welcome', 'Welcome', 'Hello', 'done', false, now()) returning id`,
    [card.id, owner.id, pass!.id],
  )
  for (const [status, count] of [
    ['sent', 4200],
    ['failed', 1800],
    ['pending', 90],
  ] as const) {
    await sql(
      `insert into apple_pushes (push_token, notification_id, pass_id, status) select 'ab12', $1, $2, $3 from generate_series(1, $4::int)`,
      [welcome!.id, pass!.id, status, count],
    )
  }
  await sql(
    `insert into notifications (card_id, user_id, pass_id, kind, title, body, status, counts_toward_quota, skipped_reason, scheduled_for)
     values ($1, $2, $3, 'we_miss_you', 'Back?', 'Hello', 'skipped', false, 'weekly_cap', now())`,
    [card.id, owner.id, pass!.id],
  )
  await signIn(page, owner)
  for (const [path, shown] of [
    [`/account/${card.id}/automations`, 'Quiet hours and limits'],
    [`/account/${card.id}/push_notification/history`, 'Apple Wallet: 4200 delivered'],
  ] as const) {
    await page.setViewportSize({ width: 360, height: 740 })
    await page.goto(path)
    await expect(page.getByText(shown, { exact: false }).first()).toBeVisible()
    for (const width of PHONE_WIDTHS) {
      expect(await measureWidth(page, width), `${path} at ${width} px`).toMatchObject({ beyondRightEdge: [] })
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `no sideways scroll at ${width} px`).toBe(
        width,
      )
    }
  }
})
