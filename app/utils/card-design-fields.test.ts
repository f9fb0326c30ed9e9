import { describe, expect, test } from 'vitest'
import { CARD_CONTENT_FIELDS, CARD_DESIGN_FIELDS, pickFields } from './card-design-fields.ts'
import { CardDesignSchema, CardEditSchema } from './card-design-schema.ts'

describe('card design fields', () => {
  test('are the fields the design form and the admin edit form validate', () => {
    expect(Object.keys(CardDesignSchema.shape)).toEqual([...CARD_DESIGN_FIELDS])
    expect(Object.keys(CardEditSchema.shape)).toEqual([...CARD_CONTENT_FIELDS])
  })

  test('pickFields takes only the named fields, in the list order', () => {
    const row = { id: 'c1', title: 'Coffee', businessName: 'Bean', passwordHash: 'x' }
    expect(pickFields(row, ['businessName', 'title'])).toEqual({ businessName: 'Bean', title: 'Coffee' })
    expect(Object.keys(pickFields(row, ['title', 'businessName']))).toEqual(['title', 'businessName'])
  })
})
