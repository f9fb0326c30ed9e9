import { apiAction, apiError, apiFieldError, apiSuccess, parseBody, postOnlyLoader } from '#app/server/api.server.ts'
import { deleteProfile } from '#app/services/accounts/profile.server.ts'
import { requireApiUserId, signOut } from '#app/services/auth/session.server.ts'
import { deleteProfileSchema } from '#app/utils/profile-schemas.ts'
import { getProfileUser } from '#models/user.server.ts'

/**
 * Deletes the signed-in owner's profile for good: body {confirm: <their email address>}. The session ends with it.
 * Another user's id answers 403.
 */
export const action = apiAction(async ({ request, params }) => {
  const userId = await requireApiUserId(request)
  if (params.id !== userId) return apiError(403, 'You can only delete your own profile')
  const user = await getProfileUser(userId)
  if (!user) return apiError(401, 'Please sign in')
  const { confirm } = await parseBody(request, deleteProfileSchema(user.email))
  const result = await deleteProfile({ userId, confirm })
  if (result.status === 'error') return apiFieldError(400, result.field, result.message)
  return apiSuccess(result.message, {}, { headers: { 'Set-Cookie': await signOut(request) } })
})

export const loader = postOnlyLoader
