import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Transaction,
} from 'sequelize'
import { getSequelize } from '#app/utils/db.server.ts'

export type NoticeKind =
  | 'payment_confirmed'
  | 'trial_ending'
  | 'plan_ending'
  | 'push_finished'
  | 'first_holder'
  | 'first_card_ready'

/** An in-app notice for an owner: the header's bell lists them. */
export class Notice extends Model<InferAttributes<Notice>, InferCreationAttributes<Notice>> {
  declare id: CreationOptional<string>
  declare userId: string
  declare kind: NoticeKind
  declare message: string
  declare link: CreationOptional<string | null>
  declare dedupeKey: string
  declare readAt: CreationOptional<Date | null>
  declare createdAt: CreationOptional<Date>
}

Notice.init(
  {
    id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
    userId: { type: DataTypes.UUID, allowNull: false },
    kind: { type: DataTypes.TEXT, allowNull: false },
    message: { type: DataTypes.TEXT, allowNull: false },
    link: { type: DataTypes.TEXT, allowNull: true },
    dedupeKey: { type: DataTypes.TEXT, allowNull: false },
    readAt: { type: DataTypes.DATE, allowNull: true },
    createdAt: DataTypes.DATE,
  },
  { sequelize: getSequelize(), tableName: 'notices', underscored: true, updatedAt: false },
)

/**
 * Raises a notice once per subject: a second call with the same dedupe key (the daily job running again, a retried
 * request) changes nothing. Returns whether a notice was created.
 */
export async function raiseNotice(
  input: { userId: string; kind: NoticeKind; message: string; link?: string | null; dedupeKey: string },
  transaction?: Transaction,
): Promise<boolean> {
  const [rows] = (await getSequelize().query(
    `insert into notices (user_id, kind, message, link, dedupe_key) values (:userId, :kind, :message, :link, :dedupeKey)
     on conflict (user_id, dedupe_key) do nothing returning id`,
    { replacements: { ...input, link: input.link ?? null }, transaction },
  )) as [unknown[], unknown]
  return rows.length > 0
}
