import { apiAction, apiError, apiFieldError, apiSuccess, parseBody, postOnlyLoader } from '#app/server/api.server.ts'
import { requestEmailChange } from '#app/services/accounts/profile.server.ts'
import { requireApiUserId } from '#app/services/auth/session.server.ts'
import { changeEmailSchema } from '#app/utils/profile-schemas.ts'
import { getProfileUser } from '#models/user.server.ts'

/**
 * Starts an e-mail change for the signed-in owner: body {email, password?} (no password for Google and Apple
 * accounts). The address changes when the link mailed to it is opened. Another user's id answers 403.
 */
export const action = apiAction(async ({ request, params }) => {
  const userId = await requireApiUserId(request)
  if (params.userId !== userId) return apiError(403, 'You can only change your own profile')
  const user = await getProfileUser(userId)
  if (!user) return apiError(401, 'Please sign in')
  const input = await parseBody(request, changeEmailSchema(user.hasPassword))
  const result = await requestEmailChange({ userId, ...input })
  if (result.status === 'error') return apiFieldError(400, result.field, result.message)
  return apiSuccess(result.message)
})

export const loader = postOnlyLoader
