import { formatDollars, periodText } from './plan-format.ts'

/**
 * One list of an owner's payments by either way to pay (issue 33, item 6): the bank-transfer invoices kept here and
 * the card invoices read from Stripe, newest first, in one shape for the admin's table.
 */
export type ManualInvoice = {
  id: string
  number: string
  status: string
  amountCents: number
  periodMonths: 1 | 12
  tariffName: string
  createdAt: Date | string
  paidAt: Date | string | null
}
export type CardInvoice = {
  id: string
  number: string
  at: string
  amountCents: number
  status: string
  url: string | null
}

export type PaymentRow = {
  id: string
  provider: 'manual' | 'stripe'
  number: string
  /** When it was paid, else when it was issued (ISO). */
  at: string
  amount: string
  status: string
  /** What was bought, where it is known here (Stripe's invoices name it at Stripe). */
  what: string | null
  url: string | null
}

const STATUS_TEXT: Record<string, string> = {
  paid: 'Paid',
  open: 'Waiting for payment',
  void: 'Replaced (void)',
  draft: 'Draft',
  uncollectible: 'Uncollectible',
}
export const paymentStatusText = (status: string) => STATUS_TEXT[status] ?? status
export const PROVIDER_TEXT = { manual: 'Bank transfer', stripe: 'Card (Stripe)' } as const

export function paymentRows(manual: readonly ManualInvoice[], card: readonly CardInvoice[]): PaymentRow[] {
  const rows: PaymentRow[] = [
    ...manual.map((invoice) => ({
      id: `manual:${invoice.id}`,
      provider: 'manual' as const,
      number: invoice.number,
      at: new Date(invoice.paidAt ?? invoice.createdAt).toISOString(),
      amount: formatDollars(invoice.amountCents),
      status: paymentStatusText(invoice.status),
      what: `${invoice.tariffName}, ${periodText(invoice.periodMonths)}`,
      url: null,
    })),
    ...card.map((invoice) => ({
      id: `stripe:${invoice.id}`,
      provider: 'stripe' as const,
      number: invoice.number,
      at: invoice.at,
      amount: formatDollars(invoice.amountCents),
      status: paymentStatusText(invoice.status),
      what: null,
      url: invoice.url,
    })),
  ]
  return rows.sort((a, b) => b.at.localeCompare(a.at))
}
