import { getEnv } from '#app/server/env.server.ts'
import { queueMail } from '#app/server/mail.server.ts'
import { supportMessageEmail } from '#app/services/mail/emails.server.ts'
import { createFeedbackMessage, type FeedbackSource } from '#models/feedback-message.server.ts'

const SOURCE_NAMES: Record<FeedbackSource, string> = { feedback: 'feedback', contacts: 'contact', account: 'account' }

/** Stores a message from a feedback or contact form and mails it to SUPPORT_EMAIL (through the outbox). */
export async function submitSupportMessage(input: Parameters<typeof createFeedbackMessage>[0]) {
  const stored = await createFeedbackMessage(input)
  const from = [input.name, input.email && `<${input.email}>`].filter(Boolean).join(' ') || null
  await queueMail({
    to: getEnv().SUPPORT_EMAIL,
    ...supportMessageEmail({
      source: SOURCE_NAMES[input.source],
      from,
      subject: input.subject,
      message: input.message,
    }),
  })
  return stored
}
