import { type SubmissionResult } from '@conform-to/react'
import { z } from 'zod'

/**
 * The signed-in owner's feedback: one schema for the Feedback form (/account/contact-us), the header's feedback
 * sender and POST /api/account/feedback. The owner's e-mail comes from the account, not the form.
 */
export const AccountFeedbackSchema = z.object({
  subject: z
    .string({ error: 'Enter a subject' })
    .trim()
    .max(150, 'Keep the subject to 150 characters or fewer')
    .optional()
    .transform((subject) => subject || undefined),
  message: z
    .string({ error: 'Write your message' })
    .trim()
    .min(1, 'Write your message')
    .max(5000, 'Keep your message to 5,000 characters or fewer'),
})

export const FEEDBACK_SENT_MESSAGE = 'Thanks! Your message has been sent.'
export const CONTACT_US_PATH = '/account/contact-us'

/** What the Feedback form's action answers a fetcher (the header's sender reads it; the page itself redirects). */
export type FeedbackAnswer = { result: SubmissionResult<string[]>; sent: boolean; redirectTo: string | null }
