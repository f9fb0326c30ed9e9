import {
  QueryTypes,
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Transaction,
} from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import {
  STRIPE_RENEWAL_LEEWAY_MS,
  TRIAL_DAYS,
  type StoredSubscription,
  type SubscriptionStatus,
} from '#app/utils/plan-status.ts'

export { TRIAL_DAYS, type SubscriptionStatus }

export class Subscription extends Model<InferAttributes<Subscription>, InferCreationAttributes<Subscription>> {
  declare id: CreationOptional<string>
  declare userId: string
  declare tariffId: CreationOptional<number | null>
  declare periodMonths: CreationOptional<1 | 12 | null>
  declare status: CreationOptional<SubscriptionStatus>
  declare trialEndsAt: Date
  declare periodStartsAt: CreationOptional<Date | null>
  declare periodEndsAt: CreationOptional<Date | null>
  declare additionalQuota: CreationOptional<number>
  declare accessEndsAt: CreationOptional<Date | null>
  declare cancelledAt: CreationOptional<Date | null>
  declare provider: CreationOptional<'manual' | 'stripe'>
  declare stripeCustomerId: CreationOptional<string | null>
  declare stripeSubscriptionId: CreationOptional<string | null>
  declare createdAt: CreationOptional<Date>
  declare updatedAt: CreationOptional<Date>
}

Subscription.init(
  {
    id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
    userId: { type: DataTypes.UUID, allowNull: false },
    tariffId: { type: DataTypes.INTEGER, allowNull: true },
    periodMonths: { type: DataTypes.INTEGER, allowNull: true },
    status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'trial' },
    trialEndsAt: { type: DataTypes.DATE, allowNull: false },
    periodStartsAt: { type: DataTypes.DATE, allowNull: true },
    periodEndsAt: { type: DataTypes.DATE, allowNull: true },
    additionalQuota: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    accessEndsAt: { type: DataTypes.DATE, allowNull: true },
    cancelledAt: { type: DataTypes.DATE, allowNull: true },
    provider: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'manual' },
    stripeCustomerId: { type: DataTypes.TEXT, allowNull: true },
    stripeSubscriptionId: { type: DataTypes.TEXT, allowNull: true },
    createdAt: DataTypes.DATE,
    updatedAt: DataTypes.DATE,
  },
  { sequelize: getSequelize(), tableName: 'subscriptions', underscored: true },
)

/** Every new owner starts a 14-day trial; the transition is recorded like every other. */
export async function startTrial(userId: string, transaction: Transaction, cause = 'account created') {
  const subscription = await Subscription.create(
    { userId, trialEndsAt: new Date(Date.now() + TRIAL_DAYS * 24 * 60 * 60 * 1000) },
    { transaction },
  )
  await recordStatusChange({ subscriptionId: subscription.id, from: null, to: 'trial', cause }, transaction)
}

type SubscriptionRow = {
  id: string
  status: SubscriptionStatus
  trial_ends_at: Date
  period_starts_at: Date | null
  period_ends_at: Date | null
  access_ends_at: Date | null
  period_months: number | null
  additional_quota: number
  provider: 'manual' | 'stripe'
  tier: number | null
  name: string | null
  card_limit: number | null
  monthly_push_limit: number | null
}

export type OwnerSubscription = StoredSubscription & { id: string; userId: string }

/** Which subscription a write is for: its id and its owner, both in the statement's condition. */
export type SubscriptionRef = { id: string; userId: string }

const SUBSCRIPTION_WITH_TARIFF = /* sql */ `
  select s.id, s.status, s.trial_ends_at, s.period_starts_at, s.period_ends_at, s.access_ends_at, s.period_months,
         s.additional_quota, s.provider, t.tier, t.name, t.card_limit, t.monthly_push_limit
  from subscriptions s left join tariffs t on t.id = s.tariff_id`

function toOwnerSubscription(row: SubscriptionRow, userId: string): OwnerSubscription {
  return {
    id: row.id,
    userId,
    status: row.status,
    trialEndsAt: new Date(row.trial_ends_at),
    periodStartsAt: row.period_starts_at && new Date(row.period_starts_at),
    periodEndsAt: row.period_ends_at && new Date(row.period_ends_at),
    accessEndsAt: row.access_ends_at && new Date(row.access_ends_at),
    periodMonths: row.period_months,
    additionalQuota: row.additional_quota,
    provider: row.provider,
    tariff:
      row.tier === null
        ? null
        : { tier: row.tier, name: row.name!, cardLimit: row.card_limit!, monthlyPushLimit: row.monthly_push_limit! },
  }
}

/** The owner's subscription with its plan, as stored (one query); `planState` tells what it means today. */
export async function getOwnerSubscription(
  userId: string,
  { transaction, lock = false }: { transaction?: Transaction; lock?: boolean } = {},
): Promise<OwnerSubscription | null> {
  const [rows] = (await getSequelize().query(
    `${SUBSCRIPTION_WITH_TARIFF} where s.user_id = :userId${lock ? ' for update of s' : ''}`,
    { replacements: { userId }, transaction },
  )) as [SubscriptionRow[], unknown]
  return rows[0] ? toOwnerSubscription(rows[0], userId) : null
}

/** Subscriptions whose stored status time has overtaken, for the scheduled job (ids only; each is then locked). */
export async function listSubscriptionsWithDueTransitions(
  now: Date,
  limit = 500,
): Promise<{ id: string; userId: string }[]> {
  const [rows] = (await getSequelize().query(
    `select id, user_id from subscriptions
     where (status = 'trial' and trial_ends_at <= :now)
        or (status = 'waiting_payment' and access_ends_at <= :now)
        or (status = 'cancelled' and period_ends_at <= :now)
        or (status = 'active' and provider = 'manual' and period_ends_at <= :now)
        -- Stripe renews a card plan itself: only one it has not renewed a day after the period's end.
        or (status = 'active' and provider = 'stripe' and period_ends_at <= :stripeDue)
     order by updated_at limit :limit`,
    { replacements: { now, limit, stripeDue: new Date(now.getTime() - STRIPE_RENEWAL_LEEWAY_MS) } },
  )) as [{ id: string; user_id: string }[], unknown]
  return rows.map((row) => ({ id: row.id, userId: row.user_id }))
}

/** Records a status change with its time and cause (docs/product/plans-and-limits.md: every transition is recorded). */
export async function recordStatusChange(
  input: {
    subscriptionId: string
    from: SubscriptionStatus | null
    to: SubscriptionStatus
    cause: string
    actorId?: string | null
    at?: Date
  },
  transaction: Transaction,
) {
  await getSequelize().query(
    `insert into subscription_status_changes (subscription_id, from_status, to_status, cause, actor_id, changed_at)
     values (:subscriptionId, :from, :to, :cause, :actorId, :at)`,
    {
      replacements: { ...input, actorId: input.actorId ?? null, at: input.at ?? new Date() },
      transaction,
    },
  )
}

/**
 * Every owner has a subscription from sign-up on. An account made another way (an import, an old row, a test)
 * gets the trial it would have had, counted from the account's creation, the first time it is needed.
 */
export async function ensureOwnerSubscription(userId: string): Promise<OwnerSubscription | null> {
  const existing = await getOwnerSubscription(userId)
  if (existing) return existing
  await getSequelize().transaction(async (transaction) => {
    const [rows] = (await getSequelize().query(
      `insert into subscriptions (user_id, trial_ends_at)
       select id, created_at + make_interval(days => :days) from users where id = :userId
       on conflict (user_id) do nothing returning id`,
      { replacements: { userId, days: TRIAL_DAYS }, transaction },
    )) as [{ id: string }[], unknown]
    if (rows[0]) {
      await recordStatusChange(
        { subscriptionId: rows[0].id, from: null, to: 'trial', cause: 'trial started on first use' },
        transaction,
      )
    }
  })
  return getOwnerSubscription(userId)
}

/** The columns a plan transition sets (billing.server.ts); only these names ever reach the statement. */
export type SubscriptionTransitionFields = {
  status: SubscriptionStatus
  tariff_id?: number
  period_months?: 1 | 12
  period_starts_at?: Date
  period_ends_at?: Date
  access_ends_at?: Date | null
  cancelled_at?: Date | null
  /** Paying by card (0023): the provider, Stripe's ids and when the state was read from Stripe. */
  provider?: 'manual' | 'stripe'
  stripe_customer_id?: string
  stripe_subscription_id?: string
  stripe_synced_at?: Date
}

const TRANSITION_COLUMNS = new Set([
  'status',
  'tariff_id',
  'period_months',
  'period_starts_at',
  'period_ends_at',
  'access_ends_at',
  'cancelled_at',
  'provider',
  'stripe_customer_id',
  'stripe_subscription_id',
  'stripe_synced_at',
])

/**
 * Writes a transition's columns on the owner's subscription, a row the caller has locked in `transaction`
 * (getOwnerSubscription with `lock`).
 */
export async function setSubscriptionFields(
  subscription: SubscriptionRef,
  fields: SubscriptionTransitionFields,
  transaction: Transaction,
) {
  const keys = Object.keys(fields).filter((key) => fields[key as keyof SubscriptionTransitionFields] !== undefined)
  // Column names come from the type above; anything else would be a programming error, not input.
  for (const key of keys) if (!TRANSITION_COLUMNS.has(key)) throw new Error(`Not a subscription column: ${key}`)
  const assignments = keys.map((key) => `${key} = :${key}`)
  await getSequelize().query(
    `update subscriptions set ${assignments.join(', ')}, updated_at = now() where id = :id and user_id = :userId`,
    { replacements: { ...fields, id: subscription.id, userId: subscription.userId }, transaction },
  )
}

/** The plan a locked subscription is on, which a renewal invoice bills again. */
export async function getSubscriptionPlan(
  { id, userId }: SubscriptionRef,
  transaction: Transaction,
): Promise<{ tariffId: number; periodMonths: 1 | 12 } | null> {
  const [rows] = (await getSequelize().query(
    `select tariff_id, period_months from subscriptions where id = :id and user_id = :userId`,
    { replacements: { id, userId }, transaction },
  )) as [{ tariff_id: number; period_months: 1 | 12 }[], unknown]
  return rows[0] ? { tariffId: rows[0].tariff_id, periodMonths: rows[0].period_months } : null
}

/** An admin's trial extension on a locked subscription: the new end, and the access end while a payment waits. */
export async function setSubscriptionTrial(
  { id, userId }: SubscriptionRef,
  { trialEndsAt, status }: { trialEndsAt: Date; status: SubscriptionStatus },
  transaction: Transaction,
) {
  await getSequelize().query(
    `update subscriptions set trial_ends_at = :trialEndsAt, status = :status,
       access_ends_at = case when :status = 'waiting_payment' then :trialEndsAt::timestamptz end
     where id = :id and user_id = :userId`,
    { replacements: { id, userId, trialEndsAt, status }, transaction },
  )
}

/** Adds messages to a locked subscription's additional quota (in SQL, so the sum is the stored one). */
export async function addAdditionalQuota({ id, userId }: SubscriptionRef, messages: number, transaction: Transaction) {
  await getSequelize().query(
    `update subscriptions set additional_quota = additional_quota + :messages where id = :id and user_id = :userId`,
    { replacements: { id, userId, messages }, transaction },
  )
}

/** Ends a locked subscription now: no access, and neither the trial nor the period reaches past `now`. */
export async function endSubscriptionAt({ id, userId }: SubscriptionRef, now: Date, transaction: Transaction) {
  await getSequelize().query(
    `update subscriptions set status = 'ended', access_ends_at = null,
       trial_ends_at = least(trial_ends_at, :now), period_ends_at = least(period_ends_at, :now)
     where id = :id and user_id = :userId`,
    { replacements: { id, userId, now }, transaction },
  )
}

export type EndingSubscription = {
  userId: string
  /** trial: the trial ends; renewal: an active plan renews; ending: a cancelled plan ends. */
  ending: 'trial' | 'renewal' | 'ending'
  tariffName: string | null
  endsAt: Date
  /** Names the subscription and, for a period, its end date: each end is told once (notices.dedupe_key). */
  dedupeKey: string
}

/**
 * Every subscription whose trial or period ends after `now` and by `horizon` (plan-housekeeping.server.ts writes
 * the notices' words). The keys are made here, from the stored end (microseconds included), as they always were.
 */
export async function listSubscriptionsEndingBy({ now, horizon }: { now: Date; horizon: Date }) {
  return getSequelize().query<EndingSubscription>(
    `select s.user_id as "userId", 'trial' as ending, null as "tariffName", s.trial_ends_at as "endsAt",
            'trial-ending:' || s.id as "dedupeKey"
       from subscriptions s where s.status = 'trial' and s.trial_ends_at > :now and s.trial_ends_at <= :horizon
     union all
     select s.user_id, 'renewal', t.name, s.period_ends_at,
            'renewal:' || s.id || ':' || extract(epoch from s.period_ends_at)::bigint
       from subscriptions s join tariffs t on t.id = s.tariff_id
       where s.status = 'active' and s.period_ends_at > :now and s.period_ends_at <= :horizon
     union all
     select s.user_id, 'ending', t.name, s.period_ends_at,
            'ending:' || s.id || ':' || extract(epoch from s.period_ends_at)::bigint
       from subscriptions s join tariffs t on t.id = s.tariff_id
       where s.status = 'cancelled' and s.period_ends_at > :now and s.period_ends_at <= :horizon`,
    { replacements: { now, horizon }, type: QueryTypes.SELECT },
  )
}
