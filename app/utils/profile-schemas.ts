import { z } from 'zod'
import { ForgotPasswordSchema, NewPasswordSchema } from './auth-schemas.ts'
import { canonicalTimeZone } from './local-time.ts'
import { LOGO_MAX_BYTES, LOGO_MESSAGES } from './logo-image.ts'

/**
 * The profile settings forms' schemas, shared by the page, the JSON calls and the browser. Checks that need the
 * database (the current password, an address already taken) happen on the server and come back as field errors.
 */
export const PROFILE_MESSAGES = {
  currentPassword: 'Enter your current password',
  wrongPassword: 'The password is not correct',
  sameEmail: 'This is already your email address',
  confirmDelete: 'Type your email address to confirm',
  deleteMismatch: 'This does not match your email address',
  timeZone: 'Choose a time zone from the list',
} as const

export const LogoSchema = z.object({
  logo: z.file({ error: LOGO_MESSAGES.missing }).max(LOGO_MAX_BYTES, { error: LOGO_MESSAGES.tooLarge }),
})

const currentPassword = z
  .string({ error: PROFILE_MESSAGES.currentPassword })
  .min(1, { error: PROFILE_MESSAGES.currentPassword })
  .max(128, { error: PROFILE_MESSAGES.wrongPassword })

/** Accounts made with Google or Apple have no password, so nothing to confirm with. */
export const changeEmailSchema = (hasPassword: boolean) =>
  z.object({
    email: ForgotPasswordSchema.shape.email,
    password: hasPassword ? currentPassword : currentPassword.optional(),
  })

export const changePasswordSchema = (hasPassword: boolean) =>
  z
    .object({
      currentPassword: hasPassword ? currentPassword : currentPassword.optional(),
      password: NewPasswordSchema,
      confirmPassword: z.string({ error: 'Passwords do not match' }).max(128),
    })
    .refine((value) => value.password === value.confirmPassword, {
      path: ['confirmPassword'],
      error: 'Passwords do not match',
    })

/** The owner types their own address: deleting is for good. */
export const deleteProfileSchema = (email: string) =>
  z.object({
    confirm: z
      .string({ error: PROFILE_MESSAGES.confirmDelete })
      .trim()
      .min(1, { error: PROFILE_MESSAGES.confirmDelete })
      .max(254, { error: PROFILE_MESSAGES.deleteMismatch })
      .refine((value) => value.toLowerCase() === email.toLowerCase(), { error: PROFILE_MESSAGES.deleteMismatch }),
  })

/**
 * The business's time zone: an IANA name this runtime knows (the server stores its canonical form, after checking
 * that the database knows it too).
 */
export const TimeZoneSchema = z.object({
  timeZone: z
    .string({ error: PROFILE_MESSAGES.timeZone })
    .max(64, { error: PROFILE_MESSAGES.timeZone })
    .refine((name) => canonicalTimeZone(name) !== null, { error: PROFILE_MESSAGES.timeZone }),
})
