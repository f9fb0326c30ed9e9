import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Transaction,
} from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'

export type InvoiceReason = 'new' | 'renewal' | 'change'
export type InvoiceStatus = 'open' | 'paid' | 'void'

/**
 * A bill for one plan period (docs/product/plans-and-limits.md: the manual provider's invoice, marked paid by an
 * admin).
 */
export class Invoice extends Model<InferAttributes<Invoice>, InferCreationAttributes<Invoice>> {
  declare id: CreationOptional<string>
  declare number: string
  declare subscriptionId: string
  declare tariffId: number
  declare periodMonths: 1 | 12
  declare amountCents: number
  declare reason: InvoiceReason
  declare status: CreationOptional<InvoiceStatus>
  declare provider: CreationOptional<string>
  declare paidAt: CreationOptional<Date | null>
  declare paidBy: CreationOptional<string | null>
  declare createdAt: CreationOptional<Date>
  declare updatedAt: CreationOptional<Date>
}

Invoice.init(
  {
    id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
    number: { type: DataTypes.TEXT, allowNull: false },
    subscriptionId: { type: DataTypes.UUID, allowNull: false },
    tariffId: { type: DataTypes.INTEGER, allowNull: false },
    periodMonths: { type: DataTypes.INTEGER, allowNull: false },
    amountCents: { type: DataTypes.INTEGER, allowNull: false },
    reason: { type: DataTypes.TEXT, allowNull: false },
    status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'open' },
    provider: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'manual' },
    paidAt: { type: DataTypes.DATE, allowNull: true },
    paidBy: { type: DataTypes.UUID, allowNull: true },
    createdAt: DataTypes.DATE,
    updatedAt: DataTypes.DATE,
  },
  { sequelize: getSequelize(), tableName: 'invoices', underscored: true },
)

export type InvoiceView = {
  id: string
  number: string
  status: InvoiceStatus
  reason: InvoiceReason
  amountCents: number
  periodMonths: 1 | 12
  tariffName: string
  tariffTier: number
  createdAt: Date
  paidAt: Date | null
}

const INVOICE_VIEW = /* sql */ `
  select i.id, i.number, i.status, i.reason, i.amount_cents, i.period_months, i.created_at, i.paid_at,
         t.name as tariff_name, t.tier as tariff_tier
  from invoices i join tariffs t on t.id = i.tariff_id`

type InvoiceRow = {
  id: string
  number: string
  status: InvoiceStatus
  reason: InvoiceReason
  amount_cents: number
  period_months: 1 | 12
  created_at: Date
  paid_at: Date | null
  tariff_name: string
  tariff_tier: number
}

const toView = (row: InvoiceRow): InvoiceView => ({
  id: row.id,
  number: row.number,
  status: row.status,
  reason: row.reason,
  amountCents: row.amount_cents,
  periodMonths: row.period_months,
  tariffName: row.tariff_name,
  tariffTier: row.tariff_tier,
  createdAt: new Date(row.created_at),
  paidAt: row.paid_at && new Date(row.paid_at),
})

/** The owner's open invoice, if any (there is at most one per subscription). */
export async function getOpenInvoiceForUser(userId: string, transaction?: Transaction): Promise<InvoiceView | null> {
  const [rows] = (await getSequelize().query(
    `${INVOICE_VIEW} join subscriptions s on s.id = i.subscription_id where s.user_id = :userId and i.status = 'open'`,
    { replacements: { userId }, transaction },
  )) as [InvoiceRow[], unknown]
  return rows[0] ? toView(rows[0]) : null
}

/** The owner's invoices, newest first; only those of one status when `status` is given. */
export async function listInvoicesForUser(
  userId: string,
  { status = null, limit = 24 }: { status?: InvoiceStatus | null; limit?: number } = {},
): Promise<InvoiceView[]> {
  const [rows] = (await getSequelize().query(
    `${INVOICE_VIEW} join subscriptions s on s.id = i.subscription_id
     where s.user_id = :userId and (:status::text is null or i.status = :status)
     order by i.created_at desc limit :limit`,
    { replacements: { userId, limit, status } },
  )) as [InvoiceRow[], unknown]
  return rows.map(toView)
}

/** A new invoice number: readable, unique and sequential (SW-2026-000042). */
export async function nextInvoiceNumber(now: Date, transaction: Transaction): Promise<string> {
  const [rows] = (await getSequelize().query(`select nextval('invoice_number_seq')::int as n`, { transaction })) as [
    { n: number }[],
    unknown,
  ]
  return `SW-${now.getUTCFullYear()}-${String(rows[0]!.n).padStart(6, '0')}`
}

/**
 * Voids a subscription's open invoice, if any (at most one is open: choosing again replaces it). By the id of the
 * owner's subscription, which the caller has read and locked by its owner in `transaction`.
 */
export async function voidOpenInvoices(subscriptionId: string, transaction: Transaction) {
  await getSequelize().query(
    `update invoices set status = 'void', updated_at = now() where subscription_id = :subscriptionId
      and status = 'open'`,
    { replacements: { subscriptionId }, transaction },
  )
}

/** A new open invoice for one period of a plan, priced from the tariff as it is now. */
export async function insertInvoice(
  input: {
    number: string
    subscriptionId: string
    tariffId: number
    periodMonths: 1 | 12
    reason: InvoiceReason
    now: Date
  },
  transaction: Transaction,
): Promise<{ id: string; number: string }> {
  const [rows] = (await getSequelize().query(
    `insert into invoices (number, subscription_id, tariff_id, period_months, amount_cents, reason,
       created_at, updated_at)
     select :number, :subscriptionId, t.id, :periodMonths,
            case when :periodMonths = 12 then t.yearly_price_cents else t.monthly_price_cents end, :reason, :now, :now
     from tariffs t where t.id = :tariffId
     returning id, number`,
    { replacements: input, transaction },
  )) as [{ id: string; number: string }[], unknown]
  return rows[0]!
}

export type InvoiceForPayment = {
  id: string
  number: string
  status: InvoiceStatus
  reason: InvoiceReason
  tariffId: number
  periodMonths: 1 | 12
  userId: string
  tariffName: string
}

/** An invoice an admin confirms, with its owner and plan name (admins act on any owner's invoice). */
export async function getInvoiceForPayment(
  invoiceId: string,
  transaction: Transaction,
): Promise<InvoiceForPayment | null> {
  const [rows] = (await getSequelize().query(
    `select i.id, i.number, i.status, i.reason, i.tariff_id, i.period_months, s.user_id, t.name as tariff_name
     from invoices i join subscriptions s on s.id = i.subscription_id join tariffs t on t.id = i.tariff_id
     where i.id = :invoiceId`,
    { replacements: { invoiceId }, transaction },
  )) as [
    {
      id: string
      number: string
      status: InvoiceStatus
      reason: InvoiceReason
      tariff_id: number
      period_months: 1 | 12
      user_id: string
      tariff_name: string
    }[],
    unknown,
  ]
  const row = rows[0]
  if (!row) return null
  return {
    id: row.id,
    number: row.number,
    status: row.status,
    reason: row.reason,
    tariffId: row.tariff_id,
    periodMonths: row.period_months,
    userId: row.user_id,
    tariffName: row.tariff_name,
  }
}

/** Marks an invoice paid, by whom (an admin, or null for the provider) and when. */
export async function markInvoicePaid(
  { invoiceId, now, actorId }: { invoiceId: string; now: Date; actorId: string | null },
  transaction: Transaction,
) {
  await getSequelize().query(
    `update invoices set status = 'paid', paid_at = :now, paid_by = :actorId, updated_at = now() where id = :id`,
    { replacements: { id: invoiceId, now, actorId }, transaction },
  )
}
