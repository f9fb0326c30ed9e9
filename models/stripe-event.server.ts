import { QueryTypes, type Transaction } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { isUuid } from '#app/utils/uuid.ts'

/**
 * Stripe's events as the webhook applied them (migration 0023), and the links between Stripe's customers and
 * subscriptions and the owners they pay for. Every statement names the caller's transaction: an event is recorded
 * in the one that applies it, so it is applied once however often it arrives.
 */

/**
 * Records the event as being applied, in `transaction`; false when it was already recorded (a replay, or the same
 * event applied by another process meanwhile: the insert waits for that one's commit, then finds it).
 */
export async function claimStripeEvent(
  event: { id: string; type: string; createdAt: Date },
  transaction: Transaction,
): Promise<boolean> {
  const rows = await getSequelize().query<{ id: string }>(
    `insert into stripe_events (id, type, outcome, stripe_created_at) values (:id, :type, 'being applied', :createdAt)
     on conflict (id) do nothing returning id`,
    { replacements: event, type: QueryTypes.SELECT, transaction },
  )
  return rows.length === 1
}

export async function setStripeEventOutcome(
  id: string,
  { userId, outcome }: { userId: string | null; outcome: string },
  transaction: Transaction,
) {
  await getSequelize().query(`update stripe_events set user_id = :userId, outcome = :outcome where id = :id`, {
    replacements: { id, userId, outcome },
    transaction,
  })
}

/**
 * The owner a Stripe subscription pays for: the one whose subscription names it or its customer, else the owner
 * our checkout named in its metadata (when that owner exists and pays through no other Stripe customer).
 */
export async function findOwnerOfStripeSubscription(
  { subscriptionId, customerId, ownerId }: { subscriptionId: string; customerId: string; ownerId?: string | null },
  transaction: Transaction,
): Promise<string | null> {
  const [linked] = await getSequelize().query<{ user_id: string }>(
    `select user_id from subscriptions
     where stripe_subscription_id = :subscriptionId or stripe_customer_id = :customerId
     order by (stripe_subscription_id = :subscriptionId) desc nulls last limit 1`,
    { replacements: { subscriptionId, customerId }, type: QueryTypes.SELECT, transaction },
  )
  if (linked) return linked.user_id
  if (!isUuid(ownerId)) return null
  const [named] = await getSequelize().query<{ user_id: string }>(
    `select s.user_id from subscriptions s join users u on u.id = s.user_id
     where s.user_id = :ownerId and u.role = 'owner' and (s.stripe_customer_id is null or s.stripe_customer_id = :customerId)`,
    { replacements: { ownerId, customerId }, type: QueryTypes.SELECT, transaction },
  )
  return named?.user_id ?? null
}

/** When the owner's subscription was last set from a read of Stripe (null: never), on the row the caller locked. */
export async function stripeSyncedAt(userId: string, transaction: Transaction): Promise<Date | null> {
  const [row] = await getSequelize().query<{ stripe_synced_at: Date | null }>(
    `select stripe_synced_at from subscriptions where user_id = :userId`,
    { replacements: { userId }, type: QueryTypes.SELECT, transaction },
  )
  return row?.stripe_synced_at ? new Date(row.stripe_synced_at) : null
}

/**
 * The owner's Stripe customer (kept once made, whatever they pay by now) and, while they pay by card, the
 * subscription: one read of the subscription row for the billing panel.
 */
export async function getStripeIds(
  userId: string,
): Promise<{ customerId: string | null; subscriptionId: string | null }> {
  const [row] = await getSequelize().query<{ customer_id: string | null; subscription_id: string | null }>(
    `select stripe_customer_id as customer_id,
            case when provider = 'stripe' then stripe_subscription_id end as subscription_id
     from subscriptions where user_id = :userId`,
    { replacements: { userId }, type: QueryTypes.SELECT },
  )
  return { customerId: row?.customer_id ?? null, subscriptionId: row?.subscription_id ?? null }
}

/** The Stripe customer the owner pays through, if one was made. */
export async function getStripeCustomerId(userId: string): Promise<string | null> {
  const [row] = await getSequelize().query<{ stripe_customer_id: string | null }>(
    `select stripe_customer_id from subscriptions where user_id = :userId`,
    { replacements: { userId }, type: QueryTypes.SELECT },
  )
  return row?.stripe_customer_id ?? null
}

/**
 * Keeps the owner's Stripe customer unless one is kept already (two checkouts at once): answers the one kept, which
 * every later checkout uses (one customer per owner, docs/product/paying-by-card.md).
 */
export async function keepStripeCustomerId(userId: string, customerId: string): Promise<string | null> {
  await getSequelize().query(
    `update subscriptions set stripe_customer_id = :customerId, updated_at = now()
     where user_id = :userId and stripe_customer_id is null`,
    { replacements: { userId, customerId } },
  )
  return getStripeCustomerId(userId)
}

/** The owner's Stripe subscription id while it pays by card, else null. */
export async function getStripeSubscriptionId(userId: string): Promise<string | null> {
  const [row] = await getSequelize().query<{ stripe_subscription_id: string | null }>(
    `select stripe_subscription_id from subscriptions where user_id = :userId and provider = 'stripe'`,
    { replacements: { userId }, type: QueryTypes.SELECT },
  )
  return row?.stripe_subscription_id ?? null
}
