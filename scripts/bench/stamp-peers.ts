import crypto from 'node:crypto'
import pg from 'pg'
import { applePassTokenFor } from '#app/services/wallet/apple-pass-token.server.ts'
import { AUTOMATION_KINDS } from '#app/utils/automations.ts'
import { startApnsPeer } from '#tests/support/apns-peer.ts'
import { makeAppleCerts } from '#tests/support/apple-certs.ts'
import { makeGoogleServiceAccount } from '#tests/support/google-service-account.ts'
import { startGoogleWalletFake } from '#tests/support/google-wallet-fake.ts'
import { pushEndpointCaCerts, startPushEndpoint } from '#tests/support/push-endpoint.ts'
import { benchShortCode, seedTrialOwner } from './lib.ts'

/*
 * What `npm run bench:stamp` stamps on (issue 32, item 3): Apple Wallet and Google Wallet on, each with its local
 * peer in this process (tests/support: an HTTP/2 APNs peer checking its tokens, the fake of Google's API), a Web Push
 * service on loopback, and a card with every automatic message on. Some holders keep the card in a wallet or allow
 * notifications, most do not (the shares below), as at a real counter.
 */

/** Of every 50 passes: 2 in Apple Wallet, 2 in Google Wallet, 1 in both (10 % in a wallet); 3 with Web Push. */
export const SHARES = { apple: [0, 1, 4], google: [2, 3, 4], web: [5, 6, 7], of: 50 }
const inShare = (index: number, share: number[]) => share.includes(index % SHARES.of)
/** One pass in 20 starts 2 stamps from the reward: its first stamp is "one stamp to go", its second earns it. */
const ONE_TO_GO_EVERY = 20

export async function startStampPeers() {
  const certs = makeAppleCerts()
  const apns = await startApnsPeer({
    topic: certs.passTypeId,
    teamId: certs.teamId,
    keyId: certs.apnsKeyId,
    publicKeyPem: crypto.createPublicKey(certs.apnsKeyPem).export({ type: 'spki', format: 'pem' }).toString(),
  })
  const account = makeGoogleServiceAccount()
  const google = await startGoogleWalletFake({
    issuerId: account.issuerId,
    clientEmail: account.clientEmail,
    publicKeyPem: account.publicKeyPem,
  })
  const push = await startPushEndpoint()
  return {
    apns,
    google,
    push,
    env: {
      ...certs.env(),
      APNS_ORIGIN: apns.origin,
      ...account.env(google.origin),
      PUSH_ALLOWED_HOSTS: push.host,
      NODE_EXTRA_CA_CERTS: pushEndpointCaCerts(),
    },
    passTypeId: certs.passTypeId,
    close: async () => {
      await apns.close()
      await google.close()
      push.close()
    },
  }
}
export type StampPeers = Awaited<ReturnType<typeof startStampPeers>>

/**
 * An owner on a trial with one card (20 stamps needed) and `passes` holders, made in SQL. The card's stamping rules
 * are on (issue 20: at most 5 stamps a scan, 100 a day per pass), so each stamp checks them and reads the pass's day;
 * a pause is not set, as the run stamps each pass about once or twice within seconds and every answer must be a
 * stamp. Every automatic message is on (the stamp push is on by default). Holders start with 0–14 stamps, one in
 * ONE_TO_GO_EVERY with 18, so no pass fills up within the run (a full card would refuse the stamp).
 */
export async function seedStampCard(client: pg.Client, { password, passes }: { password: string; passes: number }) {
  const { email, userId } = await seedTrialOwner(client, { label: 'stamp', password })
  const card = await client.query<{ id: string }>(
    `insert into cards (user_id, slug, status, title, business_name, stamps_required, reward, max_stamps_per_scan,
                        daily_stamp_cap)
     values ($1, $2, 'active', 'Bench card', 'Bench Bakery', 20, 'A free pastry', 5, 100) returning id`,
    [userId, `bench-${crypto.randomBytes(6).toString('hex')}`],
  )
  const cardId = card.rows[0]!.id
  await client.query(
    `insert into card_automations (card_id, kind, enabled, title, body, days, enabled_at)
     select $1, kind, true, initcap(replace(kind, '_', ' ')), 'A word from Bench Bakery',
            case when kind in ('reward_waiting', 'we_miss_you') then 7 end, now()
     from unnest($2::text[]) as kind`,
    [cardId, AUTOMATION_KINDS],
  )
  const codes = [...new Set(Array.from({ length: passes * 2 }, benchShortCode))].slice(0, passes)
  const stamps = codes.map((_, index) => (index % ONE_TO_GO_EVERY === ONE_TO_GO_EVERY - 1 ? 18 : index % 15))
  const inserted = await client.query<{ id: string; short_code: string }>(
    `insert into passes (card_id, short_code, stamps)
     select $1, code, stamps from unnest($2::text[], $3::int[]) with ordinality as t(code, stamps, n) order by n
     returning id, short_code`,
    [cardId, codes, stamps],
  )
  const byCode = new Map(inserted.rows.map((row) => [row.short_code, row.id]))
  return {
    email,
    cardId,
    passes: codes.map((code) => ({ id: byCode.get(code)!, shortCode: code })),
    /** What the stamps of the run are counted from. */
    initialStamps: stamps.reduce((sum, value) => sum + value, 0),
  }
}

/**
 * The shares of passes put in the wallets as holders do it, through the app's routes (Apple's web service
 * registration, 'Save to Google Wallet'), and given a Web Push device. Answers how many of each.
 */
export async function addHolderDevices(
  client: pg.Client,
  peers: StampPeers,
  baseUrl: string,
  passes: { id: string }[],
) {
  const apple = passes.filter((_, index) => inShare(index, SHARES.apple))
  const google = passes.filter((_, index) => inShare(index, SHARES.google))
  const web = passes.filter((_, index) => inShare(index, SHARES.web))
  // A holder adds the pass they downloaded: the first download makes the secret its token is signed with.
  const download = await fetch(`${baseUrl}/p/${apple[0]!.id}/wallet.pkpass`)
  await download.arrayBuffer()
  if (download.status !== 200) throw new Error(`the pass download answered ${download.status}`)
  const { rows } = await client.query<{ value: string }>(
    `select value #>> '{}' as value from settings where key = 'wallet_secret'`,
  )
  const secret = Buffer.from(rows[0]!.value, 'base64')
  for (const pass of apple) {
    const response = await fetch(
      `${baseUrl}/wallet/apple/v1/devices/bench-${pass.id}/registrations/${peers.passTypeId}/${pass.id}`,
      {
        method: 'POST',
        headers: {
          authorization: `ApplePass ${applePassTokenFor(secret, pass.id)}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ pushToken: crypto.randomBytes(32).toString('hex') }),
      },
    )
    if (response.status !== 201) throw new Error(`an Apple Wallet registration answered ${response.status}`)
  }
  for (const pass of google) {
    const response = await fetch(`${baseUrl}/p/${pass.id}/google-wallet`, { redirect: 'manual' })
    await response.arrayBuffer()
    if (response.status !== 303) throw new Error(`'Save to Google Wallet' answered ${response.status}`)
  }
  const devices = web.map(() => peers.push.createSubscription())
  await client.query(
    `insert into push_subscriptions (pass_id, endpoint, p256dh, auth)
     select * from unnest($1::uuid[], $2::text[], $3::text[], $4::text[])`,
    [
      web.map((pass) => pass.id),
      devices.map((d) => d.endpoint),
      devices.map((d) => d.keys.p256dh),
      devices.map((d) => d.keys.auth),
    ],
  )
  return { apple: apple.length, google: google.length, web: web.length }
}

/**
 * The wallet and push work the run's stamps queued, once it is done (or after `timeoutMs`): rows still pending, and
 * the time from each stamp's transaction to its APNs push or Google call being sent (p50 / p99, ms).
 */
export async function walletWorkAfter(client: pg.Client, cardId: string, since: Date, timeoutMs = 30_000) {
  const pendingSql = `select
      (select count(*)::int from apple_pushes a join passes p on p.id = a.pass_id
       where p.card_id = $1 and a.status = 'pending') as apple,
      (select count(*)::int from google_wallet_updates where card_id = $1 and status = 'pending') as google,
      (select count(*)::int from notifications where card_id = $1 and status not in ('done', 'skipped')) as web`
  const deadline = Date.now() + timeoutMs
  let pending: { apple: number; google: number; web: number }
  for (;;) {
    pending = (await client.query<typeof pending>(pendingSql, [cardId])).rows[0]!
    if ((pending.apple === 0 && pending.google === 0 && pending.web === 0) || Date.now() > deadline) break
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  const latency = await client.query<{ source: string; sent: number; p50: number; p99: number }>(
    `with sent as (
       select 'apple' as source, a.sent_at - a.created_at as wait from apple_pushes a join passes p on p.id = a.pass_id
       where p.card_id = $1 and a.status = 'sent' and a.created_at >= $2
       union all
       select 'google', sent_at - created_at from google_wallet_updates
       where card_id = $1 and kind = 'object' and status = 'sent' and created_at >= $2
     )
     select source, count(*)::int as sent,
            round(extract(epoch from percentile_cont(0.5) within group (order by wait)) * 1000)::int as p50,
            round(extract(epoch from percentile_cont(0.99) within group (order by wait)) * 1000)::int as p99
     from sent group by source`,
    [cardId, since],
  )
  const of = (source: string) => latency.rows.find((row) => row.source === source)
  return { pending: pending!, apple: of('apple'), google: of('google') }
}
