import crypto from 'node:crypto'
import fs from 'node:fs'
import QRCode from 'qrcode'
import sharp from 'sharp'
import { createCard, createOwner, signIn, sql } from '#tests/support/e2e-database.ts'
import { chromium, expect, expectPageError, failedLoad, test, type Page } from '#tests/support/test.ts'

/**
 * Stamping at /account/{cardId}/scan (issue #5, item 5), with JavaScript and without: an owner stamps a pass by
 * its short code, undoes the stamp, stamps the card full and redeems the reward. Then, with JavaScript only, the
 * camera: a separate Chromium whose fake camera films a pass's QR code. Passes are made in SQL (the holder side
 * that creates them is another module's).
 */
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'

async function createPass(cardId: string) {
  const shortCode = Array.from(crypto.randomBytes(8), (byte) => ALPHABET[byte % 32]).join('')
  const [pass] = await sql<{ id: string }>(`insert into passes (card_id, short_code) values ($1, $2) returning id`, [
    cardId,
    shortCode,
  ])
  return { id: pass!.id, shortCode }
}

const progress = (page: Page) => page.locator('.scan-pass__progress')

async function giveStamps(page: Page, code: string, count?: number) {
  await page.getByLabel('Pass code').fill(code)
  if (count !== undefined) await page.getByLabel('Stamps to give').fill(String(count))
  await page.getByRole('button', { name: 'Give stamp' }).click()
}

test('an owner stamps a pass by its short code, undoes it, stamps it full and redeems the reward', async ({ page }) => {
  // An unknown code (404), then more stamps than are left and a stamp on a full card (409).
  expectPageError(failedLoad(404, /^\/account\/[0-9a-f-]{36}\/scan$/))
  expectPageError(failedLoad(409, /^\/account\/[0-9a-f-]{36}\/scan$/))
  const owner = await createOwner('stamping')
  const card = await createCard(owner.id, { stampsRequired: 3 })
  const pass = await createPass(card.id)
  await signIn(page, owner)
  await page.goto(`/account/${card.id}/scan`)
  await expect(page.locator('main h1')).toHaveText('Scan')

  await giveStamps(page, 'ZZZZZZZZ')
  await expect(page.getByText('No card with this code')).toBeVisible()

  // In lower case, with a dash, as someone might type it.
  await giveStamps(page, `${pass.shortCode.slice(0, 4).toLowerCase()}-${pass.shortCode.slice(4).toLowerCase()}`)
  await expect(page.locator('.scan-pass h2')).toHaveText(`Pass ${pass.shortCode}`)
  await expect(progress(page)).toHaveText('1 of 3 stamps')

  await page.getByRole('button', { name: 'Undo' }).click()
  await expect(progress(page)).toHaveText('0 of 3 stamps')
  await expect(page.getByRole('button', { name: 'Undo' })).toHaveCount(0)

  await giveStamps(page, pass.shortCode, 4)
  await expect(page.getByText('Only 3 stamps left on this card')).toBeVisible()
  await giveStamps(page, pass.shortCode, 3)
  await expect(progress(page)).toHaveText('3 of 3 stamps')
  await expect(page.locator('.scan-pass__earned')).toHaveText('Reward earned: A free coffee')

  await giveStamps(page, pass.shortCode)
  await expect(page.getByText('All stamps collected: redeem the reward first')).toBeVisible()

  await page.getByRole('link', { name: 'Redeem reward' }).click()
  await page.getByRole('button', { name: 'Yes, redeem' }).click()
  await expect(progress(page)).toHaveText('0 of 3 stamps')
  await expect(page.locator('.scan-pass__rewards')).toHaveText('Rewards redeemed: 1')
  await expect(page.getByRole('link', { name: 'Redeem reward' })).toHaveCount(0)

  const events = await sql<{ kind: string; count: number; actor_id: string }>(
    `select kind, count, actor_id from stamp_events where pass_id = $1 order by id`,
    [pass.id],
  )
  expect(events.map((event) => `${event.kind} ${event.count}`)).toEqual(['stamp 1', 'undo 1', 'stamp 3', 'redeem 1'])
  expect(events.every((event) => event.actor_id === owner.id)).toBe(true)
})

test('without JavaScript there is no camera button; with it, there is', async ({ page }, testInfo) => {
  const owner = await createOwner('stamping-camera-button')
  const card = await createCard(owner.id)
  await signIn(page, owner)
  await page.goto(`/account/${card.id}/scan`)
  await expect(page.getByLabel('Pass code')).toBeVisible()
  await expect(page.getByRole('button', { name: 'Scan with camera' })).toHaveCount(
    testInfo.project.name === 'js' ? 1 : 0,
  )
})

/** A Y4M video (4:2:0, the format Chromium's fake camera reads) of a QR code on white, a few identical frames. */
async function qrVideo(text: string, file: string) {
  const width = 640
  const height = 480
  const png = await QRCode.toBuffer(text, { type: 'png', width: 400, margin: 4, errorCorrectionLevel: 'M' })
  const luma = await sharp(png)
    .flatten({ background: '#ffffff' })
    .resize({ width, height, fit: 'contain', background: '#ffffff' })
    .greyscale()
    .extractChannel(0)
    .raw()
    .toBuffer()
  expect(luma.length).toBe(width * height)
  const chroma = Buffer.alloc((width / 2) * (height / 2), 128)
  const frame = Buffer.concat([Buffer.from('FRAME\n'), luma, chroma, chroma])
  const header = Buffer.from(`YUV4MPEG2 W${width} H${height} F10:1 Ip A1:1 C420jpeg\n`)
  fs.writeFileSync(file, Buffer.concat([header, ...Array.from({ length: 10 }, () => frame)]))
}

test('the camera reads a pass’s QR code and the pass gets its stamp', async ({ baseURL }, testInfo) => {
  test.skip(
    testInfo.project.name !== 'js',
    'the camera needs JavaScript; the no-js project checks the button is absent',
  )
  const owner = await createOwner('stamping-camera')
  const card = await createCard(owner.id, { stampsRequired: 5 })
  const pass = await createPass(card.id)
  const video = testInfo.outputPath('pass-qr.y4m')
  // The holder's QR: the address of their pass page (a bare short code is read the same way).
  await qrVideo(`${baseURL}/p/${pass.id}`, video)

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--use-fake-device-for-media-stream',
      '--use-fake-ui-for-media-stream',
      `--use-file-for-fake-video-capture=${video}`,
    ],
  })
  try {
    const context = await browser.newContext({ baseURL, permissions: ['camera'] })
    const page = await context.newPage()
    const violations: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error') violations.push(message.text())
    })
    await signIn(page, owner)
    await page.goto(`/account/${card.id}/scan`)
    await page.getByRole('button', { name: 'Scan with camera' }).click()
    await expect(progress(page)).toHaveText('1 of 5 stamps', { timeout: 20_000 })
    await expect(page.locator('.scan-pass h2')).toHaveText(`Pass ${pass.shortCode}`)
    expect(violations.filter((text) => /Content Security Policy|wasm/i.test(text))).toEqual([])
    const [stored] = await sql<{ stamps: number }>(`select stamps from passes where id = $1`, [pass.id])
    expect(stored!.stamps).toBe(1)
  } finally {
    await browser.close()
  }
})
