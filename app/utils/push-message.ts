import { z } from 'zod'

/**
 * The push composer (/account/{cardId}/push_notification/create and …/template/{templateId}/create): one schema for
 * the browser's checks and the server's. Field names `title`, `body`, `link` are docs/product/push-messages.md's.
 */
export const PUSH_TITLE_MAX = 50
export const PUSH_BODY_MAX = 180
export const PUSH_LINK_MAX = 2048

export const PUSH_MESSAGES = {
  title: 'Enter a title',
  titleLong: `The title must be ${PUSH_TITLE_MAX} characters or fewer`,
  body: 'Enter the message',
  bodyLong: `The message must be ${PUSH_BODY_MAX} characters or fewer`,
  link: 'Enter a full web address starting with https:// or http://',
  linkLong: `The link must be ${PUSH_LINK_MAX} characters or fewer`,
} as const
const M = PUSH_MESSAGES

const text = (required: string, tooLong: string, max: number) =>
  z.string({ error: required }).trim().min(1, { error: required }).max(max, { error: tooLong })

export const PushMessageSchema = z.object({
  title: text(M.title, M.titleLong, PUSH_TITLE_MAX),
  body: text(M.body, M.bodyLong, PUSH_BODY_MAX),
  link: z
    .string()
    .trim()
    .max(PUSH_LINK_MAX, { error: M.linkLong })
    .refine(
      (value) =>
        /^https?:\/\/[^\s/]+\.[^\s]*$|^https?:\/\/localhost(:\d+)?(\/\S*)?$/i.test(value) && URL.canParse(value),
      { error: M.link },
    )
    .optional(),
  /** The composer's "Also save as a template" box. */
  saveAsTemplate: z.boolean().optional(),
})

export type PushMessageInput = z.output<typeof PushMessageSchema>
