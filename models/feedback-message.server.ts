import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'

export type FeedbackSource = 'feedback' | 'contacts' | 'account'

/** A message sent from /feedback, /contacts or /account/contact-us; admins mark it handled. */
export class FeedbackMessage extends Model<InferAttributes<FeedbackMessage>, InferCreationAttributes<FeedbackMessage>> {
  declare id: CreationOptional<string>
  declare source: FeedbackSource
  declare userId: string | null
  declare name: string | null
  declare email: string | null
  declare subject: string | null
  declare message: string
  declare handledAt: Date | null
  declare handledBy: string | null
  declare createdAt: CreationOptional<Date>
}

FeedbackMessage.init(
  {
    id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
    source: { type: DataTypes.TEXT, allowNull: false },
    userId: { type: DataTypes.UUID, allowNull: true },
    name: { type: DataTypes.TEXT, allowNull: true },
    email: { type: DataTypes.TEXT, allowNull: true },
    subject: { type: DataTypes.TEXT, allowNull: true },
    message: { type: DataTypes.TEXT, allowNull: false },
    handledAt: { type: DataTypes.DATE, allowNull: true },
    handledBy: { type: DataTypes.UUID, allowNull: true },
    createdAt: DataTypes.DATE,
  },
  { sequelize: getSequelize(), tableName: 'feedback_messages', underscored: true, updatedAt: false },
)

export async function createFeedbackMessage(input: {
  source: FeedbackSource
  userId?: string | null
  name?: string | null
  email?: string | null
  subject?: string | null
  message: string
}): Promise<{ id: string }> {
  const row = await FeedbackMessage.create({
    source: input.source,
    userId: input.userId ?? null,
    name: input.name ?? null,
    email: input.email ?? null,
    subject: input.subject ?? null,
    message: input.message,
    handledAt: null,
    handledBy: null,
  })
  return { id: row.id }
}
