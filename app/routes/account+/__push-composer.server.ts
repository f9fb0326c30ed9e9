import { parseWithZod } from '@conform-to/zod/v4'
import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { notFound } from '#app/server/http-errors.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { requirePushAccess } from '#app/services/billing/plan-gate.server.ts'
import { CARD_NOT_FOUND, requireOwnedCard } from '#app/services/cards/owned-card.server.ts'
import { noReachOf } from '#app/services/push/card-reach.server.ts'
import { PushMessageSchema } from '#app/utils/push-message.ts'
import { type OwnedCard } from '#models/card.server.ts'
import { createDraftNotification, getOwnedNotification, updateDraftNotification } from '#models/notification.server.ts'
import { getTemplateForOwner, saveOwnerTemplate } from '#models/template.server.ts'
import { confirmPath, type ComposerActionData, type ComposerValues, type PushCard } from './__push-composer.tsx'

/**
 * The loaders and the one action of the two composer pages (…/create and …/template/{templateId}/create). Both are
 * gated (requirePushAccess: an ended plan without additional quota goes to /account/limits_trial); another owner's
 * card, draft or template is a 404.
 */
export const pushCard = (card: OwnedCard): PushCard => ({
  id: card.id,
  title: card.title,
  businessName: card.businessName,
  backgroundColor: card.backgroundColor,
  textColor: card.textColor,
})

/** The signed-in owner, past the push gate, and their card (404 for anyone else's). */
export async function requirePushCard(request: Request, cardId: string | undefined) {
  const userId = await requireUserId(request)
  await requirePushAccess(userId)
  const card = await requireOwnedCard(userId, cardId)
  return { userId, card }
}

const EMPTY: ComposerValues = { title: '', body: '', link: '' }

/** …/create: blank, or `?draft={id}` to change a draft (a message already sent shows its confirm page instead). */
export async function loadBlankComposer({ request, params }: LoaderFunctionArgs) {
  const { userId, card } = await requirePushCard(request, params.cardId)
  const draftId = new URL(request.url).searchParams.get('draft')
  const noReach = await noReachOf({ cardId: card.id, ownerId: userId })
  if (!draftId) return { card: pushCard(card), draftId: null, values: EMPTY, noReach }
  const draft = await getOwnedNotification({ ownerId: userId, cardId: card.id, notificationId: draftId })
  if (!draft || draft.kind !== 'message') throw notFound('Message not found')
  if (draft.status !== 'draft') throw redirect(confirmPath(card.id, draft.id))
  return {
    card: pushCard(card),
    noReach,
    draftId: draft.id,
    values: { title: draft.title, body: draft.body, link: draft.link ?? '' },
  }
}

/** …/template/{templateId}/create: the composer filled from a shared template or one of the owner's own. */
export async function loadTemplateComposer({ request, params }: LoaderFunctionArgs) {
  const { userId, card } = await requirePushCard(request, params.cardId)
  const [template, noReach] = await Promise.all([
    getTemplateForOwner({ ownerId: userId, templateId: params.templateId ?? '' }),
    noReachOf({ cardId: card.id, ownerId: userId }),
  ])
  if (!template) throw notFound('Template not found')
  return {
    card: pushCard(card),
    noReach,
    draftId: null,
    template: { id: template.id, title: template.title, shared: template.shared },
    values: { title: template.title, body: template.body, link: template.link ?? '' },
  }
}

/**
 * Saves the message as a draft (a new one, or the draft named by the form's `draft` field), and as one of the
 * owner's templates when asked, then goes to the confirm page. Invalid input: 400 with the schema's messages.
 */
export async function pushComposerAction({ request, params }: ActionFunctionArgs) {
  const { userId, card } = await requirePushCard(request, params.cardId)
  if (params.templateId && !(await getTemplateForOwner({ ownerId: userId, templateId: params.templateId })))
    throw notFound('Template not found')
  // A body that is not a form reads as an empty one: 400 below, not 500.
  const formData = await readFormData(request)
  const submission = parseWithZod(formData, { schema: PushMessageSchema })
  if (submission.status !== 'success') return formReply<ComposerActionData>({ result: submission.reply() })

  const { title, body, link, saveAsTemplate } = submission.value
  const input = { title, body, link: link ?? null, templateId: params.templateId ?? null }
  const draftId = formData.get('draft')
  let notificationId: string
  if (typeof draftId === 'string' && draftId !== '') {
    if (!(await updateDraftNotification({ ownerId: userId, cardId: card.id, notificationId: draftId, input }))) {
      const existing = await getOwnedNotification({ ownerId: userId, cardId: card.id, notificationId: draftId })
      if (!existing) throw notFound('Message not found')
      return redirectWithToast(confirmPath(card.id, existing.id), {
        message: 'This message was sent already.',
        type: 'info',
      })
    }
    notificationId = draftId
  } else {
    const created = await createDraftNotification({ ownerId: userId, cardId: card.id, input })
    if (!created) throw notFound(CARD_NOT_FOUND)
    notificationId = created.id
  }
  if (!saveAsTemplate) return redirect(confirmPath(card.id, notificationId))
  await saveOwnerTemplate({ ownerId: userId, title, body, link: link ?? null })
  return redirectWithToast(confirmPath(card.id, notificationId), {
    message: 'Saved as a template. Check the message and send it.',
  })
}
