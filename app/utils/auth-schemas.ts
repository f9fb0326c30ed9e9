import { z } from 'zod'
import { browserTimeZone } from './time-zone-choice.ts'

/**
 * The auth forms' schemas, shared by pages, JSON calls and the browser, with the specification's exact messages
 * as docs/product/passwords-and-tokens.md amends them ("Passwords").
 */
export const PASSWORD_SPECIALS = '!@#$%^&*().,'

const email = z
  .string({ error: 'Invalid email format' })
  .trim()
  .max(254, { error: 'Invalid email format' })
  .pipe(z.email({ error: 'Invalid email format' }))

/** One policy for every new password: sign-up, change-password and profile. */
export const NewPasswordSchema = z
  .string({ error: '6 characters minimum' })
  .min(6, { error: '6 characters minimum' })
  .max(128, { error: '128 characters maximum' })
  .regex(/[A-Z]/, { error: 'At least one uppercase letter' })
  .regex(/\d/, { error: 'At least one number' })
  .regex(/[!@#$%^&*().,]/, { error: `At least one special character ${PASSWORD_SPECIALS}` })

export const LoginSchema = z.object({
  email,
  password: z
    .string({ error: 'Password must be 6 or more characters' })
    .min(6, { error: 'Password must be 6 or more characters' })
    .max(128, { error: 'Password must be 128 characters or fewer' }),
  redirectTo: z.string().max(2000).optional(),
})

export const SignupSchema = z
  .object({
    email,
    password: NewPasswordSchema,
    confirmPassword: z.string({ error: "Passwords don't match" }).max(128),
    // The browser's zone, filled in by the page's script (absent without JavaScript, optional in the JSON call):
    // anything that is not a zone becomes null (UTC), never an error.
    timeZone: z.unknown().optional().transform(browserTimeZone),
    // Ticked after the page said the address has a pending invitation: make an own account, withdrawing it.
    withdrawInvitation: z.boolean().optional(),
  })
  .refine((value) => value.password === value.confirmPassword, {
    path: ['confirmPassword'],
    error: "Passwords don't match",
  })

export const ForgotPasswordSchema = z.object({ email })
export const ResendSchema = z.object({ email })

export const TokenSchema = z.object({
  token: z
    .string({ error: 'This link is invalid' })
    .trim()
    .min(20, { error: 'This link is invalid' })
    .max(200, { error: 'This link is invalid' }),
})

export const ChangePasswordSchema = z
  .object({
    password: NewPasswordSchema,
    confirmPassword: z.string({ error: 'Passwords do not match' }).max(128),
    token: TokenSchema.shape.token,
  })
  .refine((value) => value.password === value.confirmPassword, {
    path: ['confirmPassword'],
    error: 'Passwords do not match',
  })
