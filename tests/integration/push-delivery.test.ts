import { expect, test } from 'vitest'
import { PUSH_REQUEST_TIMEOUT_MS, PUSH_TTL_SECONDS } from '#app/services/push/push-delivery.server.ts'
import { sendOwnerNotification } from '#app/services/push/push-send.server.ts'
import { getVapidKeys } from '#app/services/push/vapid.server.ts'
import { sql } from '#tests/support/auth-api.ts'
import { createDraft, createPushAudience, waitUntilDone } from '#tests/support/push-audience.ts'
import { usePushDelivery } from '#tests/support/push-delivery-harness.ts'
import { type Behaviour } from '#tests/support/push-endpoint.ts'

/*
 * Durable delivery (issue #6) against a real push service on loopback: HTTPS, the VAPID JWT checked with the key
 * the app signs with, every body decrypted with the subscription's private key (tests/support/push-endpoint.ts).
 * The job queue runs in this process, as in the app server.
 */

const endpoint = usePushDelivery()

test(
  '1,000 holders: each body decrypts to the message, 410s are gone, 503s and a hang are delivered on retry',
  { timeout: 120_000 },
  async () => {
    const behaviours: Behaviour[] = Array.from({ length: 1000 }, (_, index): Behaviour => {
      if (index % 50 === 7) return 'gone'
      if (index % 50 === 13) return { fail: 1, status: 503 }
      if (index === 500) return 'hang'
      return 'ok'
    })
    const { owner, cardId, passIds, subscriptions } = await createPushAudience(endpoint, behaviours)
    const notificationId = await createDraft(owner.id, cardId, {
      title: 'Happy hour',
      body: 'Two coffees for one until 6 pm',
    })
    const started = Date.now()
    const sent = await sendOwnerNotification({ ownerId: owner.id, cardId, notificationId })
    expect(sent.ok).toBe(true)
    await waitUntilDone(notificationId, 90_000)
    const elapsed = Date.now() - started

    const received = endpoint.received()
    const perSubscription = endpoint.deliveriesBySubscription()
    const reachable = subscriptions.filter((_, index) => behaviours[index] !== 'gone')
    // Every reachable holder got it exactly once, and every body decrypted to this message for their own pass.
    // With each count: a failure says whether a holder got it twice or never.
    expect(
      reachable
        .map((subscription) => ({
          endpoint: subscription.endpoint,
          received: perSubscription.get(subscription.endpoint) ?? 0,
        }))
        .filter(({ received }) => received !== 1),
    ).toEqual([])
    expect(received).toHaveLength(reachable.length)
    for (const request of received) {
      const index = subscriptions.findIndex((subscription) => subscription.endpoint === request.endpoint)
      expect(JSON.parse(request.payload!)).toMatchObject({
        id: notificationId,
        title: 'Happy hour',
        body: 'Two coffees for one until 6 pm',
        url: expect.stringMatching(new RegExp(`/p/${passIds[index]}$`)),
        icon: expect.stringMatching(new RegExp(`/p/${passIds[index]}/icons/192-[0-9a-z]+\\.png$`)),
      })
      expect(request).toMatchObject({
        ttl: PUSH_TTL_SECONDS,
        urgency: 'normal',
        topic: notificationId.replaceAll('-', ''),
      })
      expect(request.vapidSubject).toMatch(/^mailto:/)
    }
    // No request was refused by the push service's VAPID or encryption checks.
    expect(
      endpoint
        .requests()
        .filter((request) => request.status === 401 || request.status === 403 || request.status === 400),
    ).toEqual([])

    // 503 then 201: two requests each. The hang: timed out, then delivered.
    const retried = subscriptions.filter((_, index) => typeof behaviours[index] === 'object')
    for (const subscription of retried) {
      expect(
        endpoint
          .requests()
          .filter((request) => request.endpoint === subscription.endpoint)
          .map((request) => request.status),
      ).toEqual([503, 201])
    }
    const hung = subscriptions[500]!
    expect(
      endpoint
        .requests()
        .filter((request) => request.endpoint === hung.endpoint)
        .map((request) => request.status),
    ).toEqual([null, 201])
    expect(elapsed).toBeGreaterThanOrEqual(PUSH_REQUEST_TIMEOUT_MS)

    // 410: the deliveries are 'gone' and the subscriptions deleted; the rest 'sent'.
    const gone = subscriptions
      .filter((_, index) => behaviours[index] === 'gone')
      .map((subscription) => subscription.endpoint)
    expect(await sql(`select 1 from push_subscriptions where endpoint in (:gone)`, { gone })).toEqual([])
    const counts = await sql<{ status: string; count: number }>(
      `select status, count(*)::int as count from deliveries where notification_id = :notificationId group by status order by status`,
      { notificationId },
    )
    expect(counts).toEqual([
      { status: 'gone', count: gone.length },
      { status: 'sent', count: reachable.length },
    ])

    // The quota took one message, however many received it; the owner's bell says it finished.
    const [message] = await sql<{ quota_source: string; recipients: number }>(
      `select quota_source, recipients from notifications where id = :notificationId`,
      { notificationId },
    )
    expect(message).toEqual({ quota_source: 'monthly', recipients: 1000 })
    const notices = await sql<{ message: string; link: string }>(
      `select message, link from notices where user_id = :userId and kind = 'push_finished'`,
      { userId: owner.id },
    )
    expect(notices).toEqual([
      {
        message: `Your push "Happy hour" reached ${reachable.length} holders (${gone.length} could not be reached)`,
        link: `/account/${cardId}/push_notification/history`,
      },
    ])
  },
)

test('the push service sees the key the app signs with, and a second process would sign with the same one', async () => {
  const keys = await getVapidKeys()
  const [stored] = await sql<{ value: { publicKey: string } }>(`select value from settings where key = 'vapid_keys'`)
  expect(stored?.value.publicKey).toBe(keys.publicKey)
  expect(Buffer.from(keys.publicKey, 'base64url')).toHaveLength(65)
})
