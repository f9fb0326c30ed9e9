import { getEnv } from '#app/server/env.server.ts'

/**
 * How an owner pays an invoice. Plans talk to this interface only, so a card processor can be added beside the
 * manual provider without touching the plan rules (docs/product/plans-and-limits.md, "Payment").
 */
export type PaymentProvider = {
  id: string
  /** What the owner is told to do to pay, shown with the invoice number, amount and period. */
  paymentInstructions(invoice: { number: string; amountCents: number }): string
}

// Outside production: sample bank details, so a newcomer sees what an owner will see. In production without
// PAYMENT_INSTRUCTIONS nobody is shown made-up bank details.
const DEVELOPMENT_INSTRUCTIONS =
  'Pay by bank transfer to Stampwise Ltd, IBAN GB00 STMP 0000 0000 0000 00, BIC STMPGB2L (sample details). ' +
  'Write the invoice number as the payment reference. We confirm your payment within one working day.'
const PRODUCTION_FALLBACK =
  'We will e-mail you the bank details for this invoice. Write the invoice number as the payment reference.'

/** Invoices paid by bank transfer and marked paid by an admin. */
export const manualProvider: PaymentProvider = {
  id: 'manual',
  paymentInstructions: () => {
    const env = getEnv()
    return env.PAYMENT_INSTRUCTIONS ?? (env.isProduction ? PRODUCTION_FALLBACK : DEVELOPMENT_INSTRUCTIONS)
  },
}

export function getPaymentProvider(id = 'manual'): PaymentProvider {
  if (id === manualProvider.id) return manualProvider
  throw new Error(`Unknown payment provider: ${id}`)
}
