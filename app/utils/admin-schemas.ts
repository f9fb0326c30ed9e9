import { z } from 'zod'
import { ForgotPasswordSchema } from './auth-schemas.ts'
import { CardDesignSchema, CardRewardSchema } from './card-design-schema.ts'

/**
 * The admin pages' forms, one schema each, checked by the browser (conform) and again by the server. Every action
 * on an account carries an explicit "I confirm" box: a plain checkbox, so the confirmation works without JavaScript.
 */
export const ADMIN_MESSAGES = {
  confirm: 'Tick “I confirm” to go ahead',
  invoice: 'There is no open invoice to confirm',
  tier: 'Choose a plan',
  periodMonths: 'Choose monthly or yearly billing',
  days: 'Enter a number of days from 1 to 90',
  messages: 'Enter a number of messages from 1 to 1000',
  message: 'Unknown message',
} as const
const M = ADMIN_MESSAGES

const confirm = z.literal('on', { error: M.confirm })
const wholeNumber = (min: number, max: number, error: string) =>
  z.number({ error }).int({ error }).min(min, { error }).max(max, { error })

export const ConfirmPaymentSchema = z.object({
  intent: z.literal('confirm-payment'),
  invoiceId: z.uuid({ error: M.invoice }),
  confirm,
})

export const ChangePlanSchema = z.object({
  intent: z.literal('change-plan'),
  tier: wholeNumber(1, 3, M.tier),
  periodMonths: z.enum(['1', '12'], { error: M.periodMonths }),
  confirm,
})

export const ExtendTrialSchema = z.object({
  intent: z.literal('extend-trial'),
  days: wholeNumber(1, 90, M.days),
  confirm,
})

export const GrantQuotaSchema = z.object({
  intent: z.literal('grant-quota'),
  messages: wholeNumber(1, 1000, M.messages),
  confirm,
})

export const EndSubscriptionSchema = z.object({ intent: z.literal('end-subscription'), confirm })
export const ResendConfirmationSchema = z.object({ intent: z.literal('resend-confirmation'), confirm })
export const DisableAccountSchema = z.object({ intent: z.literal('disable'), confirm })
export const EnableAccountSchema = z.object({ intent: z.literal('enable'), confirm })

/** Every form of /admin/users/{userId}, by the `intent` it posts. */
export const USER_ACTION_SCHEMAS = {
  'confirm-payment': ConfirmPaymentSchema,
  'change-plan': ChangePlanSchema,
  'extend-trial': ExtendTrialSchema,
  'grant-quota': GrantQuotaSchema,
  'end-subscription': EndSubscriptionSchema,
  'resend-confirmation': ResendConfirmationSchema,
  disable: DisableAccountSchema,
  enable: EnableAccountSchema,
} as const
export type UserActionIntent = keyof typeof USER_ACTION_SCHEMAS
export const isUserActionIntent = (value: unknown): value is UserActionIntent =>
  typeof value === 'string' && Object.hasOwn(USER_ACTION_SCHEMAS, value)

/**
 * /admin/users/new: the owner's address and their card, with the owner's own card builder's rules and messages
 * (card-design-schema.ts), so a pre-made card is one the owner could have made.
 */
export const PremadeAccountSchema = CardDesignSchema.extend(CardRewardSchema.shape).extend({
  email: ForgotPasswordSchema.shape.email,
  confirm,
})
export type PremadeAccountInput = z.output<typeof PremadeAccountSchema>

export const FeedbackActionSchema = z.object({
  intent: z.enum(['handle', 'reopen']),
  messageId: z.uuid({ error: M.message }),
})
