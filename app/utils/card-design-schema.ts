import { z } from 'zod'
import { STAMP_ICONS } from './stamp-icon-names.ts'

/**
 * The card builder's forms, one schema each, shared by the onboarding pages (/main, /card_reward), the browser's
 * checks and the /api/onboarding JSON calls, so every client gets the same messages.
 */
export const CARD_DESIGN_MESSAGES = {
  businessName: 'Enter your business name',
  businessNameLong: 'The business name must be 60 characters or fewer',
  title: 'Enter a title for the card',
  titleLong: 'The card title must be 60 characters or fewer',
  stampsRequired: 'Choose how many stamps are needed, from 1 to 20',
  color: 'Choose a colour in the form #rrggbb',
  stampIcon: 'Choose one of the stamp icons',
  reward: 'Describe the reward',
  rewardLong: 'The reward must be 120 characters or fewer',
  termsLong: 'The terms must be 600 characters or fewer',
  cardId: 'Give the card’s id',
} as const
const M = CARD_DESIGN_MESSAGES

export const DEFAULT_CARD_DESIGN = {
  businessName: '',
  title: '',
  stampsRequired: 10,
  backgroundColor: '#1f3a5f',
  textColor: '#ffffff',
  stampIcon: 'star',
} as const

const requiredText = (required: string, tooLong: string, max: number) =>
  z.string({ error: required }).trim().min(1, { error: required }).max(max, { error: tooLong })

// Stored lower-case (the table's check): '#AABBCC' from a client is accepted and normalised.
const color = z
  .string({ error: M.color })
  .regex(/^#[0-9a-f]{6}$/i, { error: M.color })
  .transform((value) => value.toLowerCase())

const stampsRequired = z
  .number({ error: M.stampsRequired })
  .int({ error: M.stampsRequired })
  .min(1, { error: M.stampsRequired })
  .max(20, { error: M.stampsRequired })

export const CardDesignSchema = z.object({
  businessName: requiredText(M.businessName, M.businessNameLong, 60),
  title: requiredText(M.title, M.titleLong, 60),
  stampsRequired,
  backgroundColor: color,
  textColor: color,
  stampIcon: z.enum(STAMP_ICONS, { error: M.stampIcon }).default('star'),
})
export type CardDesignInput = z.output<typeof CardDesignSchema>

export const CardRewardSchema = z.object({
  reward: requiredText(M.reward, M.rewardLong, 120),
  terms: z.string().trim().max(600, { error: M.termsLong }).default(''),
})
export type CardRewardInput = z.output<typeof CardRewardSchema>

// The JSON calls also take form bodies, whose numbers arrive as text (the pages' forms get this from conform).
const numberFromText = (value: unknown) =>
  typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value

/** POST /api/onboarding/card-constructor: the design, and optionally the id of the owner's card to update. */
export const CardDesignCallSchema = CardDesignSchema.extend({
  stampsRequired: z.preprocess(numberFromText, stampsRequired),
  cardId: z.string().optional(),
})

/** POST /api/onboarding/card-reward. */
export const CardRewardCallSchema = CardRewardSchema.extend({
  cardId: z.string({ error: M.cardId }).min(1, { error: M.cardId }),
})

/** An admin's edit of a card (/admin/users/{userId}/cards/{cardId}/edit): the design and the reward in one form. */
export const CardEditSchema = CardDesignSchema.extend(CardRewardSchema.shape)
export type CardEditInput = z.output<typeof CardEditSchema>
