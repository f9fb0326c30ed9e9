import crypto from 'node:crypto'
import { expect, test } from 'vitest'
import { prepareNotification } from '#app/services/push/push-delivery.server.ts'
import { getPassPageVersion } from '#models/pass.server.ts'
import { createOwner } from '#tests/support/account-owner.ts'
import { sql } from '#tests/support/auth-api.ts'
import { openPassStream } from '#tests/support/pass-live-stream.ts'
import { useTestServer } from '#tests/support/test-server.ts'
import { createWalletPass } from '#tests/support/wallet-device.ts'

/**
 * The open pass's event stream, GET /p/{passId}/live (issue 30, item 1; docs/decisions/050-open-pass-refresh.md),
 * over HTTP against the built app on both databases. The changes are made in SQL from this test's own connection,
 * as another instance on the same database would make them: the app's process learns of them only by reading the
 * database, once a second for all its open passes.
 */
const server = useTestServer()

async function createPass(stampsRequired = 6) {
  const owner = await createOwner()
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name, stamps_required, reward)
     values (:owner, :slug, 'active', 'Live card', 'Corner', :stampsRequired, 'A free coffee') returning id`,
    { owner: owner.id, slug: `live-${crypto.randomBytes(4).toString('hex')}`, stampsRequired },
  )
  return { ownerId: owner.id, cardId: card!.id, passId: (await createWalletPass(card!.id)).id }
}

/** A message as the owner's confirm step queues it, then on its way (the push job's first step). */
async function sendMessage(card: { ownerId: string; cardId: string }, body: string, audience = 'all') {
  const [row] = await sql<{ id: string }>(
    `insert into notifications (card_id, user_id, kind, status, title, body, link, audience, queued_at)
     values (:cardId, :ownerId, 'message', 'queued', 'Corner news', :body, 'https://corner.example/menu', :audience,
       now())
     returning id`,
    { ...card, body, audience },
  )
  await prepareNotification(row!.id)
}

/** The latest message as the pass page shows it (its HTML, through the render cache), or null. */
async function shownMessage(passId: string) {
  const html = await (await server.fetch(`/p/${passId}`)).text()
  const section = /<section class="pass-page__message"[^]*?<\/section>/.exec(html)?.[0]
  return section
    ? section
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim()
    : null
}

const openStream = (passId: string, version?: string) =>
  openPassStream((pathname, init) => server.fetch(pathname, init), passId, version)

const pageVersion = async (passId: string) => (await getPassPageVersion(passId))!

test('a stamp, an undo and a design change reach the open stream within 2 s, each once', async () => {
  const { cardId, passId } = await createPass()
  const stream = await openStream(passId, await pageVersion(passId))
  expect(stream.response.status).toBe(200)
  expect(stream.response.headers.get('Content-Type')).toBe('text/event-stream; charset=utf-8')
  expect(stream.response.headers.get('Content-Encoding')).toBeNull()
  try {
    const started = Date.now()
    await sql(`update passes set stamps = stamps + 1 where id = :passId`, { passId })
    expect(await stream.next('change')).toBe(await pageVersion(passId))
    expect(Date.now() - started).toBeLessThan(2_000)

    await sql(`update passes set stamps = stamps - 1 where id = :passId`, { passId })
    expect(await stream.next('change')).toBe(await pageVersion(passId))
    await sql(`update cards set stamps_required = 7 where id = :cardId`, { cardId })
    expect(await stream.next('change')).toBe(await pageVersion(passId))
    // Nothing changed since: no further event.
    await expect(stream.next('change', 1_500)).rejects.toThrow(/no 'change' event/)
  } finally {
    stream.close()
  }
})

test('a page that is behind already (a stamp between its render and its stream) hears of it at once', async () => {
  const { passId } = await createPass()
  const stream = await openStream(passId, '1|1')
  try {
    expect(await stream.next('change', 500)).toBe(await pageVersion(passId))
  } finally {
    stream.close()
  }
})

test('a removed pass ends its stream; an unknown pass is a 404; the 11th page of one pass a 429', async () => {
  const { passId } = await createPass()
  const stream = await openStream(passId)
  await sql(`delete from passes where id = :passId`, { passId })
  expect(await stream.next('change', 3_000)).toBe('ended')

  const unknown = await server.fetch(`/p/${crypto.randomUUID()}/live`)
  expect(unknown.status).toBe(404)
  expect(await unknown.text()).toBe('This card is not here any more.')

  const other = await createPass()
  const open = await Promise.all(Array.from({ length: 10 }, () => openStream(other.passId)))
  try {
    expect(open.map((page) => page.response.status)).toEqual(Array(10).fill(200))
    const eleventh = await server.fetch(`/p/${other.passId}/live`)
    expect(eleventh.status).toBe(429)
    expect(await eleventh.text()).toBe('This card is open on too many pages at once.')
  } finally {
    for (const page of open) page.close()
  }
})

test('a message to all holders, then one to an audience, reaches the open pages it was sent to within 2 s', async () => {
  const card = await createPass()
  const { passId } = card
  const oneToGo = (await createWalletPass(card.cardId, 5)).id
  expect(await shownMessage(passId)).toBeNull()
  const [stream, oneToGoStream] = [
    await openStream(passId, await pageVersion(passId)),
    await openStream(oneToGo, await pageVersion(oneToGo)),
  ]
  try {
    const started = Date.now()
    await sendMessage(card, 'Two coffees for one today')
    expect(await stream.next('change')).toBe(await pageVersion(passId))
    expect(await oneToGoStream.next('change')).toBe(await pageVersion(oneToGo))
    expect(Date.now() - started).toBeLessThan(2_000)
    const today = new Date().toLocaleDateString('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short' })
    for (const id of [passId, oneToGo]) {
      expect(await shownMessage(id)).toMatch(
        new RegExp(`^Latest message Corner news Two coffees for one today Open the link Sent ${today} \\d{4}$`),
      )
    }

    // An audience's message goes to the pass that was one stamp short when it left, not to the other.
    await sendMessage(card, 'One more stamp and the coffee is yours', 'one_to_go')
    expect(await oneToGoStream.next('change')).toBe(await pageVersion(oneToGo))
    expect(await shownMessage(oneToGo)).toContain('One more stamp and the coffee is yours')
    // (The other page may hear of a change too: an audience's message moves its card's wallet time, one row for
    // the whole audience, so its page asks again and finds the message it had.)
    expect(await shownMessage(passId)).toContain('Two coffees for one today')

    // A newer message to all holders is the latest of both again.
    await sendMessage(card, 'Closed on Monday')
    expect(await oneToGoStream.next('change')).toBe(await pageVersion(oneToGo))
    expect(await shownMessage(oneToGo)).toContain('Closed on Monday')
    expect(await shownMessage(passId)).toContain('Closed on Monday')
  } finally {
    stream.close()
    oneToGoStream.close()
  }
})
