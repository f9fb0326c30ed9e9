import { describe, expect, test } from 'vitest'
import { paymentRows } from './payments.ts'

describe('payments of both ways to pay', () => {
  test('bank transfers and card invoices in one list, newest first, each said in words', () => {
    const rows = paymentRows(
      [
        {
          id: 'a',
          number: 'SW-2026-000001',
          status: 'paid',
          amountCents: 3900,
          periodMonths: 1,
          tariffName: 'Standard',
          createdAt: '2026-01-02T10:00:00.000Z',
          paidAt: '2026-01-05T10:00:00.000Z',
        },
        {
          id: 'b',
          number: 'SW-2026-000002',
          status: 'void',
          amountCents: 79000,
          periodMonths: 12,
          tariffName: 'Premium',
          createdAt: '2026-02-01T10:00:00.000Z',
          paidAt: null,
        },
      ],
      [
        {
          id: 'in_1',
          number: 'ABC-0001',
          at: '2026-03-01T00:00:00.000Z',
          amountCents: 3950,
          status: 'paid',
          url: 'https://pay.example/in_1',
        },
      ],
    )
    expect(rows).toEqual([
      {
        id: 'stripe:in_1',
        provider: 'stripe',
        number: 'ABC-0001',
        at: '2026-03-01T00:00:00.000Z',
        amount: '$39.50',
        status: 'Paid',
        what: null,
        url: 'https://pay.example/in_1',
      },
      {
        id: 'manual:b',
        provider: 'manual',
        number: 'SW-2026-000002',
        at: '2026-02-01T10:00:00.000Z',
        amount: '$790',
        status: 'Replaced (void)',
        what: 'Premium, yearly (12 months)',
        url: null,
      },
      {
        id: 'manual:a',
        provider: 'manual',
        number: 'SW-2026-000001',
        at: '2026-01-05T10:00:00.000Z',
        amount: '$39',
        status: 'Paid',
        what: 'Standard, monthly',
        url: null,
      },
    ])
  })

  test('an unknown status of Stripe’s shows as Stripe says it', () => {
    const [row] = paymentRows(
      [],
      [{ id: 'in_2', number: 'X', at: '2026-01-01T00:00:00.000Z', amountCents: 0, status: 'refunded', url: null }],
    )
    expect(row!.status).toBe('refunded')
  })
})
