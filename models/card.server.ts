import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
} from 'sequelize'
import { getSequelize } from '#app/utils/db.server.ts'

export type CardStatus = 'draft' | 'active' | 'archived'

/** An owner's stamp card (DECISIONS.md, "Cards and holders"). */
export class Card extends Model<InferAttributes<Card>, InferCreationAttributes<Card>> {
  declare id: CreationOptional<string>
  declare userId: string
  declare slug: string
  declare status: CreationOptional<CardStatus>
  declare title: CreationOptional<string>
  declare businessName: CreationOptional<string>
  declare stampsRequired: CreationOptional<number>
  declare backgroundColor: CreationOptional<string>
  declare textColor: CreationOptional<string>
  declare stampIcon: CreationOptional<string>
  declare logo: CreationOptional<Buffer | null>
  declare logoContentType: CreationOptional<string | null>
  declare reward: CreationOptional<string>
  declare terms: CreationOptional<string>
  declare onboardingStep: CreationOptional<string | null>
  declare archivedAt: CreationOptional<Date | null>
  declare createdAt: CreationOptional<Date>
  declare updatedAt: CreationOptional<Date>
}

Card.init(
  {
    id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
    userId: { type: DataTypes.UUID, allowNull: false },
    slug: { type: DataTypes.TEXT, allowNull: false },
    status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'draft' },
    title: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    businessName: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    stampsRequired: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 10 },
    backgroundColor: { type: DataTypes.TEXT, allowNull: false, defaultValue: '#1f3a5f' },
    textColor: { type: DataTypes.TEXT, allowNull: false, defaultValue: '#ffffff' },
    stampIcon: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'star' },
    logo: { type: DataTypes.BLOB, allowNull: true },
    logoContentType: { type: DataTypes.TEXT, allowNull: true },
    reward: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    terms: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    onboardingStep: { type: DataTypes.TEXT, allowNull: true },
    archivedAt: { type: DataTypes.DATE, allowNull: true },
    createdAt: DataTypes.DATE,
    updatedAt: DataTypes.DATE,
  },
  { sequelize: getSequelize(), tableName: 'cards', underscored: true },
)

export type CardSummary = Pick<InferAttributes<Card>, 'id' | 'title' | 'businessName'>

/** The owner's cards, oldest first, as the account home lists them. */
export async function listOwnerCardSummaries(userId: string): Promise<CardSummary[]> {
  return Card.findAll({
    attributes: ['id', 'title', 'businessName'],
    where: { userId },
    order: [['createdAt', 'ASC']],
    raw: true,
  }) as Promise<CardSummary[]>
}

/** How many cards the owner has (the specification's total_cards). */
export async function countOwnerCards(userId: string): Promise<number> {
  return Card.count({ where: { userId } })
}

/** Cards that count toward the plan's card limit: every card not archived (drafts included). */
export async function countActiveOwnerCards(userId: string): Promise<number> {
  const [rows] = (await getSequelize().query(
    `select count(*)::int as count from cards where user_id = :userId and status <> 'archived'`,
    { replacements: { userId } },
  )) as [{ count: number }[], unknown]
  return rows[0]!.count
}
