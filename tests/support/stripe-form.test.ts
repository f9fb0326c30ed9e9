import { describe, expect, test } from 'vitest'
import { parseStripeForm } from './stripe-form.ts'

describe('parseStripeForm', () => {
  test('nested objects, indexed and empty-bracket arrays, encoded brackets', () => {
    const text =
      'product=stampwise_basic&recurring[interval]=month&lookup_keys[0]=a&lookup_keys[1]=b' +
      '&line_items[0][price]=p1&line_items[0][quantity]=1&expand[]=x&expand[]=y&metadata%5Bowner%5D=u1&empty='
    expect(parseStripeForm(text)).toEqual({
      product: 'stampwise_basic',
      recurring: { interval: 'month' },
      lookup_keys: ['a', 'b'],
      line_items: [{ price: 'p1', quantity: '1' }],
      expand: ['x', 'y'],
      metadata: { owner: 'u1' },
      empty: '',
    })
  })

  test('an object whose keys are not all indices stays an object', () => {
    expect(parseStripeForm('metadata[0]=a&metadata[plan]=b')).toEqual({ metadata: { 0: 'a', plan: 'b' } })
  })
})
