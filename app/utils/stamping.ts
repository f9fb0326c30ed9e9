import { z } from 'zod'

/**
 * The scan pages' forms (/account/{cardId}/scan and the staff's /staff/{cardId}/scan), checked with the same
 * schemas in the browser and on the server.
 * `code` and `count` are the field names docs/product/contracts.md ("Form fields") fixes. The code
 * is only checked for presence and length here: whether a pass has it is the server's answer ('No card with this
 * code'), and a code is accepted in any case, with spaces or dashes, or as the pass's address read from its QR.
 */
export const STAMP_MESSAGES = {
  code: 'Enter the code under the holder’s QR code',
  codeTooLong: 'This is not a pass code',
  count: 'Give between 1 and 20 stamps at once',
  location: 'Choose where you are stamping',
  notYourLocation: 'Choose one of your locations',
} as const

/**
 * Where the stamp, undo or redemption happens (docs/product/staff-locations-rules.md): one of the
 * actor's locations, checked on the server (actorLocation). Absent when the actor has none, or only one (it is used).
 */
const locationId = z
  .string({ error: STAMP_MESSAGES.location })
  .max(64, { error: STAMP_MESSAGES.notYourLocation })
  .optional()

export const StampSchema = z.object({
  intent: z.literal('stamp'),
  code: z
    .string({ error: STAMP_MESSAGES.code })
    .trim()
    .min(1, { error: STAMP_MESSAGES.code })
    .max(200, { error: STAMP_MESSAGES.codeTooLong }),
  count: z
    .number({ error: STAMP_MESSAGES.count })
    .int({ error: STAMP_MESSAGES.count })
    .min(1, { error: STAMP_MESSAGES.count })
    .max(20, { error: STAMP_MESSAGES.count })
    .optional(),
  locationId,
  /**
   * The owner's tick past a stamping rule that refused (never honoured for staff). A checkbox sends 'on'; anything
   * else is no tick rather than an error, as the field is only on the page after a rule refused.
   */
  override: z
    .unknown()
    .transform((value) => value === 'on' || value === true)
    .optional(),
})

/** Undo and Redeem act on the pass the page shows. */
export const PassActionSchema = z.object({
  intent: z.enum(['undo', 'redeem']),
  passId: z.uuid({ error: 'Pass not found' }),
  locationId,
})

/** The staff page's small form: where this device is, remembered in a cookie. */
export const LocationChoiceSchema = z.object({
  intent: z.literal('location'),
  locationId: z
    .string({ error: STAMP_MESSAGES.location })
    .min(1, { error: STAMP_MESSAGES.location })
    .max(64, { error: STAMP_MESSAGES.notYourLocation }),
})

export const STAMP_INTENTS = ['stamp', 'undo', 'redeem'] as const
export type StampIntent = (typeof STAMP_INTENTS)[number]
export const isStampIntent = (value: unknown): value is StampIntent => STAMP_INTENTS.includes(value as StampIntent)
