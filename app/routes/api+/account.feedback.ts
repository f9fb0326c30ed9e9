import { apiAction, apiSuccess, parseBody, postOnlyLoader } from '#app/server/api.server.ts'
import { sendAccountFeedback } from '#app/services/accounts/account-feedback.server.ts'
import { requireApiUserId } from '#app/services/auth/session.server.ts'
import { AccountFeedbackSchema, FEEDBACK_SENT_MESSAGE } from '#app/utils/account-feedback.ts'

/** The signed-in owner's feedback, JSON or form body `{subject?, message}`: stored and mailed to SUPPORT_EMAIL. */
export const action = apiAction(async ({ request }) => {
  const userId = await requireApiUserId(request)
  const { subject, message } = await parseBody(request, AccountFeedbackSchema)
  const { id } = await sendAccountFeedback({ userId, subject, message })
  return apiSuccess(FEEDBACK_SENT_MESSAGE, { feedback: { id } })
})

export const loader = postOnlyLoader
