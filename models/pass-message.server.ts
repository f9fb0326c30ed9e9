import { type Transaction } from 'sequelize'
import { targetPassIdsSql, targetReplacements, type MessageTarget } from './holder-audience.server.ts'
import { selectRows } from './transaction.server.ts'

/*
 * The latest message each holder was sent, as their pass shows it (the pass page, the back of the Apple pass):
 * migration 0019. A card's message to all its holders is one row of the card; a message to one pass or to an
 * audience is a row per pass, since the audience is decided when it leaves. A pass shows the newer of the two.
 */

/** Joins a pass `p` of card `c` to its two latest-message rows (`cm`, `pm`); both may be missing. */
export const PASS_MESSAGE_JOINS = `left join card_latest_messages cm on cm.card_id = c.id
  left join pass_latest_messages pm on pm.pass_id = p.id`

/** The pass's latest message id, or null (with PASS_MESSAGE_JOINS). */
export const PASS_MESSAGE_ID = `(case when pm.sent_at is null or cm.sent_at > pm.sent_at
  then cm.notification_id else pm.notification_id end)`

/** When the pass's latest message left, as microseconds (0: none); a part of the pass page's version. */
export const PASS_MESSAGE_VERSION = `coalesce((extract(epoch from greatest(cm.sent_at, pm.sent_at)) * 1000000)::bigint, 0)`

const REPLACE = 'do update set notification_id = excluded.notification_id, sent_at = excluded.sent_at'

/**
 * Records a message that starts sending as the latest of its target's passes (the caller holds the notification's
 * lock, in `transaction`): one row for a message to all of a card's holders, one per pass otherwise.
 */
export async function markLatestMessage(
  notificationId: string,
  transaction: Transaction,
  target: MessageTarget,
): Promise<void> {
  if (target.passId === null && target.audience === 'all') {
    await selectRows(
      `insert into card_latest_messages (card_id, notification_id, sent_at)
       values (:cardId, :notificationId, clock_timestamp())
       on conflict (card_id) ${REPLACE}`,
      { cardId: target.cardId, notificationId },
      transaction,
    )
    return
  }
  await selectRows(
    `insert into pass_latest_messages (pass_id, notification_id, sent_at)
     select t.id, :notificationId, clock_timestamp() from (${targetPassIdsSql(target)}) t
     on conflict (pass_id) ${REPLACE}`,
    { notificationId, ...targetReplacements(target) },
    transaction,
  )
}
