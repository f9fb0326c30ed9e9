import { type Transaction } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'

/**
 * The owner's additional push messages (docs/product/plans-and-limits.md, "Push quota"): bought or granted beyond the
 * monthly quota, kept on the subscription row. Its own file: models/subscription.server.ts belongs to billing.
 */

/**
 * Takes one additional message from the owner's subscription, inside the send's transaction that locked the row (so
 * two sends cannot both take the last one). The owner's id in the condition keeps the statement to their row.
 */
export async function spendAdditionalPush(
  { subscriptionId, ownerId }: { subscriptionId: string; ownerId: string },
  transaction?: Transaction,
) {
  await getSequelize().query(
    `update subscriptions set additional_quota = additional_quota - 1 where id = :id and user_id = :ownerId`,
    { replacements: { id: subscriptionId, ownerId }, transaction },
  )
}
