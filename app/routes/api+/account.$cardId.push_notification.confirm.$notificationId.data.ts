import { apiError, apiLoader, apiSuccess, getOnlyAction } from '#app/server/api.server.ts'
import { requireApiUserId } from '#app/services/auth/session.server.ts'
import { getPushConfirmData, NOTIFICATION_NOT_FOUND, notificationView } from '#app/services/push/push-send.server.ts'
import { AUDIENCE_MESSAGE, parseAudience } from '#app/utils/audience.ts'
import { getOwnedCard } from '#models/card.server.ts'

/**
 * GET /api/account/{cardId}/push_notification/confirm/{notificationId}/data: what the confirm page shows (the
 * message with its delivery progress, the devices it reaches, the quota), and what the page polls while the
 * message is being sent. `recipients` and `progress` count every channel; `reach` (devices per channel) and
 * `progress.channels` (sent / failed / pending per channel) tell web push and Apple Wallet apart. For a draft,
 * `?audience=` (all, inactive, one_to_go, reward_waiting; default all) chooses whose reach is counted, and `holders`
 * says how many holders the audience has and how many of them are reached; once scheduled or sent, `audience` is the
 * message's own (and `holders` null once sent). An unknown audience is 400. Owner-scoped:
 * another owner's card or message, or a malformed id, is 404. Not gated: it reads and sends nothing, like the
 * history.
 */
export const loader = apiLoader(async ({ request, params }) => {
  const userId = await requireApiUserId(request)
  const card = await getOwnedCard({ cardId: params.cardId, userId })
  if (!card) return apiError(404, 'Card not found')
  const audience = parseAudience(new URL(request.url).searchParams.get('audience'), 'all')
  if (!audience) return apiError(400, AUDIENCE_MESSAGE)
  const confirm = await getPushConfirmData({
    ownerId: userId,
    cardId: card.id,
    notificationId: params.notificationId ?? '',
    audience,
  })
  if (!confirm) return apiError(404, NOTIFICATION_NOT_FOUND)
  const { notification, recipients, reach, quota, holders } = confirm
  return apiSuccess('Push notification', {
    notification: notificationView(notification),
    recipients,
    reach,
    quota,
    audience: confirm.audience,
    holders,
  })
})

export const action = getOnlyAction
