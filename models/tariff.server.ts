import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Transaction,
} from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { type PublicTariff } from '#app/types/tariffs.ts'

export type { PublicTariff }

/** A paid plan (docs/product/plans-and-limits.md). Prices are in cents. */
export class Tariff extends Model<InferAttributes<Tariff>, InferCreationAttributes<Tariff>> {
  declare id: CreationOptional<number>
  declare tier: 1 | 2 | 3
  declare name: string
  declare monthlyPriceCents: number
  declare yearlyPriceCents: number
  declare cardLimit: number
  declare monthlyPushLimit: number
  declare staffSeats: number
  declare createdAt: CreationOptional<Date>
  declare updatedAt: CreationOptional<Date>
}

Tariff.init(
  {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
    tier: { type: DataTypes.INTEGER, allowNull: false },
    name: { type: DataTypes.TEXT, allowNull: false },
    monthlyPriceCents: { type: DataTypes.INTEGER, allowNull: false },
    yearlyPriceCents: { type: DataTypes.INTEGER, allowNull: false },
    cardLimit: { type: DataTypes.INTEGER, allowNull: false },
    monthlyPushLimit: { type: DataTypes.INTEGER, allowNull: false },
    staffSeats: { type: DataTypes.INTEGER, allowNull: false },
    createdAt: DataTypes.DATE,
    updatedAt: DataTypes.DATE,
  },
  { sequelize: getSequelize(), tableName: 'tariffs', underscored: true },
)

// The shape the pricing tables know (app/types) is these columns: one renamed or retyped fails to compile here.
type TariffColumns = Pick<InferAttributes<Tariff>, keyof PublicTariff>
const _sameShape: [TariffColumns, PublicTariff] extends [PublicTariff, TariffColumns] ? true : never = true

/** The plans as the pricing tables show them, cheapest first. */
export async function listTariffs(): Promise<PublicTariff[]> {
  const rows = await Tariff.findAll({
    attributes: [
      'tier',
      'name',
      'monthlyPriceCents',
      'yearlyPriceCents',
      'cardLimit',
      'monthlyPushLimit',
      'staffSeats',
    ],
    order: [['tier', 'ASC']],
    raw: true,
  })
  return rows as PublicTariff[]
}

/** The id of the plan with this tier, or null when there is none. */
export async function findTariffIdByTier(tier: number, transaction?: Transaction): Promise<number | null> {
  const row = await Tariff.findOne({ attributes: ['id'], where: { tier }, raw: true, transaction })
  return row?.id ?? null
}

/** The plan with this tier (its id and name), or null when there is none. */
export async function findTariffByTier(
  tier: number,
  transaction?: Transaction,
): Promise<{ id: number; name: string } | null> {
  const row = await Tariff.findOne({ attributes: ['id', 'name'], where: { tier }, raw: true, transaction })
  return row ? { id: row.id, name: row.name } : null
}
