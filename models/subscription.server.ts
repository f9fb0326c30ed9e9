import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Transaction,
} from 'sequelize'
import { getSequelize } from '#app/utils/db.server.ts'

export type SubscriptionStatus = 'trial' | 'active' | 'ended' | 'cancelled' | 'waiting_payment'
export const TRIAL_DAYS = 14

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
  await getSequelize().query(
    `insert into subscription_status_changes (subscription_id, from_status, to_status, cause) values (:id, null, 'trial', :cause)`,
    { replacements: { id: subscription.id, cause }, transaction },
  )
}
