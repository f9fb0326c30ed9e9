import { type Transaction } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { isUuid } from '#app/utils/uuid.ts'
import { targetPassIdsSql, targetReplacements, type MessageTarget } from './holder-audience.server.ts'
import { selectRows } from './transaction.server.ts'

/**
 * Google Wallet's rows (migration 0011): the classes and objects made at Google when holders saved their card, and
 * the calls to Google still to make (google_wallet_updates), claimed with a lease by the jobs
 * (app/services/wallet/google-wallet-delivery.server.ts) as Apple's pushes and web push's deliveries are. Holders have
 * no account: a pass is reached by its unguessable id.
 */

const select = selectRows

/** The card's fields a Google class shows. */
export type GoogleCardFields = {
  cardId: string
  title: string
  businessName: string
  stampsRequired: number
  backgroundColor: string
  reward: string
  terms: string
  /** The card's version (its logo's address carries it, so Google fetches a new logo). */
  cardVersion: number
}

/** What 'Save to Google Wallet' needs: the pass and its card, and whether Google already has them. */
export type GooglePassRow = GoogleCardFields & {
  passId: string
  shortCode: string
  stamps: number
  rewardsRedeemed: number
  hasClass: boolean
  /** The pass's object at Google: active, gone (deleted on Google's side), or none yet. */
  objectState: 'active' | 'gone' | null
}

const CARD_FIELDS = `c.id as "cardId", c.title, c.business_name as "businessName",
  c.stamps_required as "stampsRequired", c.background_color as "backgroundColor", c.reward, c.terms,
  (extract(epoch from c.updated_at) * 1000)::float8 as "cardVersion"`

export async function getGooglePassRow(passId: string): Promise<GooglePassRow | null> {
  if (!isUuid(passId)) return null
  const [row] = await select<GooglePassRow>(
    `select p.id as "passId", p.short_code as "shortCode", p.stamps, p.rewards_redeemed as "rewardsRedeemed",
            ${CARD_FIELDS},
            exists (select 1 from google_wallet_classes g where g.card_id = c.id) as "hasClass",
            (select o.state from google_wallet_objects o where o.pass_id = p.id) as "objectState"
     from passes p join cards c on c.id = p.card_id where p.id = :passId`,
    { passId },
  )
  return row ?? null
}

/** The card's class exists at Google (inserted, or found and updated). */
export async function recordGoogleWalletClass(cardId: string) {
  await getSequelize().query(
    `insert into google_wallet_classes (card_id) select id from cards where id = :cardId on conflict do nothing`,
    { replacements: { cardId } },
  )
}

/**
 * The pass's object exists at Google, made from the pass as it was read (`stamps`, `rewardsRedeemed`): a stamp given
 * between that read and this record found no object to update, so one is queued now. False when the pass is gone.
 */
export async function recordGoogleWalletObject({
  passId,
  stamps,
  rewardsRedeemed,
}: {
  passId: string
  stamps: number
  rewardsRedeemed: number
}): Promise<boolean> {
  const [row] = await select<{ queued: number; recorded: number }>(
    `with recorded as (
       insert into google_wallet_objects (pass_id, card_id) select id, card_id from passes where id = :passId
       on conflict (pass_id) do update set state = 'active' returning pass_id, card_id
     ), queued as (
       insert into google_wallet_updates (kind, card_id, pass_id)
       select 'object', r.card_id, r.pass_id from recorded r join passes p on p.id = r.pass_id
       where (p.stamps, p.rewards_redeemed) is distinct from (:stamps, :rewardsRedeemed)
       returning 1
     )
     select (select count(*)::int from recorded) as recorded, (select count(*)::int from queued) as queued`,
    { passId, stamps, rewardsRedeemed },
  )
  return row!.recorded > 0
}

/** Holders of the owner's card whose pass is in Google Wallet (an object counts from its creation). */
export async function countCardGoogleWallet({ cardId, userId }: { cardId: string; userId: string }) {
  if (!isUuid(cardId) || !isUuid(userId)) return 0
  const [row] = await select<{ count: number }>(
    `select count(*)::int as count from google_wallet_objects o join cards c on c.id = o.card_id
     where o.card_id = :cardId and c.user_id = :userId and o.state = 'active'`,
    { cardId, userId },
  )
  return row!.count
}

/**
 * A message is added to each saved pass it reaches (its audience's, or the one holder's): one row per active
 * object, naming the message, so its history counts Google Wallet passes; the sender reads the message by that
 * name. Answers how many were queued. Runs in the transaction that prepares the message's deliveries.
 */
export async function queueMessageGoogleWalletUpdates(
  notificationId: string,
  transaction: Transaction,
  target: MessageTarget,
) {
  // All the card's holders: its objects by their card index, without reading its passes.
  const objects =
    target.passId === null && target.audience === 'all'
      ? `google_wallet_objects o where o.card_id = :targetCardId and o.state = 'active'`
      : `(${targetPassIdsSql(target)}) t join google_wallet_objects o on o.pass_id = t.id and o.state = 'active'`
  const [row] = await select<{ count: number }>(
    `with queued as (
       insert into google_wallet_updates (kind, card_id, pass_id, notification_id)
       select 'message', o.card_id, o.pass_id, :notificationId
       from ${objects}
       returning 1
     )
     select count(*)::int as count from queued`,
    { notificationId, ...targetReplacements(target) },
    transaction,
  )
  return row!.count
}

/**
 * Before the owner's cards (one, or all of them) are deleted, their saved passes are set INACTIVE at Google: a holder
 * sees the card end instead of one that silently stops updating. The rows outlive the passes they name.
 */
export async function queueGoogleWalletObjectsEnd(
  { userId, cardId }: { userId: string; cardId?: string },
  transaction: Transaction,
): Promise<number> {
  if (!isUuid(userId) || (cardId !== undefined && !isUuid(cardId))) return 0
  const [row] = await select<{ count: number }>(
    `with queued as (
       insert into google_wallet_updates (kind, card_id, pass_id)
       select 'inactive', o.card_id, o.pass_id from google_wallet_objects o join cards c on c.id = o.card_id
       where c.user_id = :userId ${cardId ? 'and c.id = :cardId' : ''} and o.state = 'active'
       returning 1
     )
     select count(*)::int as count from queued`,
    { userId, cardId },
    transaction,
  )
  return row!.count
}

/** A claimed call to Google with what it carries, read now (the newest stamps and design). */
export type ClaimedGoogleWalletUpdate = {
  id: string
  kind: 'class' | 'object' | 'message' | 'inactive'
  cardId: string | null
  passId: string | null
  notificationId: string | null
  notify: boolean
  attempts: number
  /** The pass (object calls): null when it is gone. */
  pass: { shortCode: string; stamps: number } | null
  /** The card (class and object calls): null when it is gone. */
  card: GoogleCardFields | null
  message: { title: string; body: string } | null
  /** The pass's holder was notified this many times in the last 24 hours (Google allows 3). */
  recentNotifications: number
  /**
   * Message calls: the newest messages already sent to the pass (up to GOOGLE_MESSAGES_PER_OBJECT, oldest first), so
   * the sender can keep the object within Google's limit. Empty for other calls.
   */
  sentMessages: { notificationId: string; title: string; body: string }[]
}

/** Google keeps at most this many messages on an object, and removes none itself. */
export const GOOGLE_MESSAGES_PER_OBJECT = 10

type ClaimedRow = Omit<ClaimedGoogleWalletUpdate, 'pass' | 'card' | 'message' | 'sentMessages'> & {
  sentMessages: ClaimedGoogleWalletUpdate['sentMessages'] | string | null
  shortCode: string | null
  stamps: number | null
  messageTitle: string | null
  messageBody: string | null
} & { [K in keyof GoogleCardFields]: GoogleCardFields[K] | null }

/**
 * Claims up to `limit` due, unleased pending calls for `leaseSeconds`; each claim counts as an attempt. Messages to one
 * pass go one at a time, in order (a message waits while an earlier one to its pass is pending, in flight or due
 * later): each is sent knowing every message before it, which keeps the object within Google's 10.
 */
export async function claimGoogleWalletUpdates(limit: number, leaseSeconds: number) {
  const rows = await select<ClaimedRow>(
    `with picked as (
       select id from google_wallet_updates u
       where status = 'pending' and (lease_until is null or lease_until < now())
         and (next_attempt_at is null or next_attempt_at <= now())
         and (kind <> 'message' or not exists (
           select 1 from google_wallet_updates e
           where e.pass_id = u.pass_id and e.kind = 'message' and e.status = 'pending' and e.id < u.id))
       order by id limit :limit
       for update skip locked
     ), claimed as (
       update google_wallet_updates u set attempts = u.attempts + 1, lease_until = now() + make_interval(secs => :lease)
       from picked where u.id = picked.id
       returning u.id, u.kind, u.card_id, u.pass_id, u.notification_id, u.notify, u.attempts
     )
     select u.id::text as id, u.kind, u.card_id as "cardId", u.pass_id as "passId",
            u.notification_id as "notificationId", u.notify, u.attempts,
            p.short_code as "shortCode", p.stamps, ${CARD_FIELDS},
            n.title as "messageTitle", n.body as "messageBody",
            (select count(*)::int from google_wallet_updates x
             where x.pass_id = u.pass_id and x.notified and x.sent_at > now() - interval '24 hours')
              as "recentNotifications",
            case when u.kind = 'message' then (
              select coalesce(json_agg(json_build_object('notificationId', m.notification_id, 'title', m.title,
                       'body', m.body) order by m.sent_at, m.id), '[]')
              from (select x.id, x.notification_id, x.sent_at, sn.title, sn.body
                    from google_wallet_updates x join notifications sn on sn.id = x.notification_id
                    where x.pass_id = u.pass_id and x.kind = 'message' and x.status = 'sent'
                    order by x.sent_at desc, x.id desc limit :messagesRead) m
            ) end as "sentMessages"
     from claimed u
       left join passes p on p.id = u.pass_id
       left join cards c on c.id = u.card_id
       left join notifications n on n.id = u.notification_id
     order by u.id`,
    { limit, lease: leaseSeconds, messagesRead: GOOGLE_MESSAGES_PER_OBJECT },
  )
  return rows.map((row): ClaimedGoogleWalletUpdate => ({
    id: row.id,
    kind: row.kind,
    cardId: row.cardId,
    passId: row.passId,
    notificationId: row.notificationId,
    notify: row.notify,
    attempts: row.attempts,
    recentNotifications: row.recentNotifications,
    pass: row.shortCode !== null && row.stamps !== null ? { shortCode: row.shortCode, stamps: row.stamps } : null,
    card:
      row.cardId !== null && row.title !== null
        ? {
            cardId: row.cardId,
            title: row.title,
            businessName: row.businessName!,
            stampsRequired: row.stampsRequired!,
            backgroundColor: row.backgroundColor!,
            reward: row.reward!,
            terms: row.terms!,
            cardVersion: row.cardVersion!,
          }
        : null,
    message: row.messageTitle !== null ? { title: row.messageTitle, body: row.messageBody ?? '' } : null,
    // JSON from the PostgreSQL server's driver, text from some others.
    sentMessages: typeof row.sentMessages === 'string' ? JSON.parse(row.sentMessages) : (row.sentMessages ?? []),
  }))
}

/** How long until the next pending call can be claimed (a retry's time, or a lease's end); null: none pending. */
export async function nextGoogleWalletUpdateWaitMs(): Promise<number | null> {
  const [row] = await select<{ wait_ms: number | null; pending: number }>(
    `select count(*)::int as pending,
            extract(epoch from min(greatest(coalesce(next_attempt_at, now()), coalesce(lease_until, now())) - now()))
              * 1000 as wait_ms
     from google_wallet_updates where status = 'pending'`,
    {},
  )
  if (!row || row.pending === 0) return null
  return Math.max(0, Number(row.wait_ms ?? 0))
}

export type GoogleWalletUpdateOutcome = {
  id: string
  status: 'sent' | 'failed' | 'gone' | 'pending'
  error: string | null
  nextAttemptAt: Date | null
  /** Sent: whether Google was asked to notify the holder. */
  notified: boolean | null
  /** Gone: the class or object Google no longer has. */
  goneClassOf?: string
  goneObjectOf?: string
}

/**
 * Writes a group of outcomes in one transaction; a class or object Google no longer has (404) is forgotten (a class:
 * made again at the next save) or marked gone (an object: nothing more is sent to it until its holder saves it again).
 */
export async function recordGoogleWalletUpdateOutcomes(rows: GoogleWalletUpdateOutcome[]): Promise<void> {
  await getSequelize().transaction(async (transaction) => {
    await getSequelize().query(
      `update google_wallet_updates u set status = r.status, last_error = r.error,
         next_attempt_at = r.next_attempt_at, notified = r.notified, lease_until = null,
         sent_at = case when r.status = 'sent' then now() else u.sent_at end
       from unnest(array[:ids]::bigint[], array[:statuses]::text[], array[:errors]::text[],
         array[:nexts]::timestamptz[], array[:notified]::boolean[]) as r(id, status, error, next_attempt_at, notified)
       where u.id = r.id`,
      {
        replacements: {
          ids: rows.map((row) => row.id),
          statuses: rows.map((row) => row.status),
          errors: rows.map((row) => row.error),
          nexts: rows.map((row) => row.nextAttemptAt?.toISOString() ?? null),
          notified: rows.map((row) => row.notified),
        },
        transaction,
      },
    )
    const goneClasses = rows.flatMap((row) => (row.goneClassOf ? [row.goneClassOf] : []))
    if (goneClasses.length) {
      await getSequelize().query(`delete from google_wallet_classes where card_id in (:goneClasses)`, {
        replacements: { goneClasses },
        transaction,
      })
    }
    const goneObjects = rows.flatMap((row) => (row.goneObjectOf ? [row.goneObjectOf] : []))
    if (goneObjects.length) {
      await getSequelize().query(`update google_wallet_objects set state = 'gone' where pass_id in (:goneObjects)`, {
        replacements: { goneObjects },
        transaction,
      })
    }
  })
}

/**
 * With Google Wallet turned off, queued calls can never go: those older than `minutes` fail, so messages finish and
 * counts stay true (younger ones wait: the setting may be back at the next start).
 */
export async function failPendingGoogleWalletUpdates(reason: string, minutes: number): Promise<string[]> {
  const rows = await select<{ notification_id: string | null }>(
    `update google_wallet_updates set status = 'failed', last_error = :reason, lease_until = null
     where status = 'pending' and created_at < now() - make_interval(mins => :minutes) returning notification_id`,
    { reason, minutes },
  )
  return [...new Set(rows.flatMap((row) => (row.notification_id ? [row.notification_id] : [])))]
}

/**
 * Settled calls older than `days` are deleted (a message's rows stay with it: they cascade with the message; the
 * notified ones of the last day stay for Google's limit).
 */
export async function pruneGoogleWalletUpdates(days: number): Promise<number> {
  const rows = await select(
    `delete from google_wallet_updates where status <> 'pending' and notification_id is null
       and created_at < now() - make_interval(days => greatest(:days, 1)) returning 1`,
    { days },
  )
  return rows.length
}
