import { type Transaction } from 'sequelize'
import { isUuid } from './card.server.ts'
import { selectRows } from './transaction.server.ts'

/**
 * What /admin/users/{userId} shows of one account (issue #7): reads across the owner's records, by the user's id
 * only (an admin sees every owner). Each names the columns it returns: no password hash, no logo bytes.
 */
const select = selectRows

export type AdminUserProfile = {
  id: string
  email: string
  role: 'owner' | 'admin' | 'staff'
  emailConfirmedAt: Date | null
  isPremade: boolean
  disabledAt: Date | null
  hasPassword: boolean
  createdAt: Date
}

/** The account, disabled or not; null for an unknown or malformed id (the page answers 404). */
export async function getAdminUserProfile(userId: string, transaction?: Transaction): Promise<AdminUserProfile | null> {
  if (!isUuid(userId)) return null
  const [row] = await select<AdminUserProfile>(
    `select id, email, role, email_confirmed_at as "emailConfirmedAt", is_premade as "isPremade",
            disabled_at as "disabledAt", password_hash is not null as "hasPassword", created_at as "createdAt"
     from users where id = :userId`,
    { userId },
    transaction,
  )
  return row ?? null
}

export type AdminStatusChange = {
  id: string
  fromStatus: string | null
  toStatus: string
  cause: string
  actorEmail: string | null
  changedAt: Date
}

/** The subscription's transitions, newest first. */
export async function listStatusChanges(userId: string, limit = 50): Promise<AdminStatusChange[]> {
  return select<AdminStatusChange>(
    `select c.id::text, c.from_status as "fromStatus", c.to_status as "toStatus", c.cause,
            actor.email as "actorEmail", c.changed_at as "changedAt"
     from subscription_status_changes c
     join subscriptions s on s.id = c.subscription_id
     left join users actor on actor.id = c.actor_id
     where s.user_id = :userId
     order by c.changed_at desc, c.id desc limit :limit`,
    { userId, limit },
  )
}

export type AdminCardRow = {
  id: string
  title: string
  businessName: string
  status: string
  holders: number
  createdAt: Date
}

/** Every card of the owner, archived ones last, with its number of holders. */
export async function listAdminUserCards(userId: string): Promise<AdminCardRow[]> {
  return select<AdminCardRow>(
    `select c.id, c.title, c.business_name as "businessName", c.status, c.created_at as "createdAt",
            (select count(*)::int from passes p where p.card_id = c.id) as holders
     from cards c where c.user_id = :userId
     order by c.status = 'archived', c.created_at`,
    { userId },
  )
}

export type AdminPushRow = {
  id: string
  cardTitle: string
  kind: string
  title: string
  status: string
  quotaSource: string | null
  recipients: number | null
  sent: number
  failed: number
  pending: number
  queuedAt: Date | null
  createdAt: Date
}

/** The owner's latest pushes (drafts left out), with their delivery counts. */
export async function listRecentPushes(userId: string, limit = 20): Promise<AdminPushRow[]> {
  return select<AdminPushRow>(
    `select n.id, c.title as "cardTitle", n.kind, n.title, n.status, n.quota_source as "quotaSource",
            n.recipients, n.queued_at as "queuedAt", n.created_at as "createdAt",
            (select count(*) from deliveries d where d.notification_id = n.id and d.status = 'sent')::int as sent,
            (select count(*) from deliveries d
              where d.notification_id = n.id and d.status in ('failed', 'gone'))::int as failed,
            (select count(*) from deliveries d where d.notification_id = n.id and d.status = 'pending')::int as pending
     from notifications n join cards c on c.id = n.card_id
     where n.user_id = :userId and n.status <> 'draft'
     order by coalesce(n.queued_at, n.created_at) desc, n.id desc limit :limit`,
    { userId, limit },
  )
}

/** The subscription's stored columns, as the audit log records them before and after an admin's change. */
export type SubscriptionSnapshot = {
  id: string
  status: string
  tier: number | null
  periodMonths: number | null
  trialEndsAt: Date
  periodStartsAt: Date | null
  periodEndsAt: Date | null
  accessEndsAt: Date | null
  additionalQuota: number
  openInvoice: string | null
}

export async function getSubscriptionSnapshot(
  userId: string,
  transaction?: Transaction,
): Promise<SubscriptionSnapshot | null> {
  const [row] = await select<SubscriptionSnapshot>(
    `select s.id, s.status, t.tier, s.period_months as "periodMonths", s.trial_ends_at as "trialEndsAt",
            s.period_starts_at as "periodStartsAt", s.period_ends_at as "periodEndsAt",
            s.access_ends_at as "accessEndsAt", s.additional_quota as "additionalQuota",
            (select i.number from invoices i where i.subscription_id = s.id and i.status = 'open') as "openInvoice"
     from subscriptions s left join tariffs t on t.id = s.tariff_id
     where s.user_id = :userId`,
    { userId },
    transaction,
  )
  return row ?? null
}

export type AdminStripeBilling = {
  provider: 'manual' | 'stripe'
  stripeCustomerId: string | null
  stripeSubscriptionId: string | null
}

/** How the owner pays (issue 33, item 6): the provider and Stripe's ids; null when there is no subscription. */
export async function getAdminStripeBilling(userId: string): Promise<AdminStripeBilling | null> {
  const [row] = await select<AdminStripeBilling>(
    `select provider, stripe_customer_id as "stripeCustomerId", stripe_subscription_id as "stripeSubscriptionId"
     from subscriptions where user_id = :userId`,
    { userId },
  )
  return row ?? null
}

export type AdminStripeEvent = { id: string; type: string; outcome: string; appliedAt: Date }

/** Stripe's events applied to the owner's plan, newest first. */
export async function listStripeEventsForUser(userId: string, limit = 10): Promise<AdminStripeEvent[]> {
  return select<AdminStripeEvent>(
    `select id, type, outcome, applied_at as "appliedAt" from stripe_events
     where user_id = :userId order by applied_at desc, id desc limit :limit`,
    { userId, limit },
  )
}
