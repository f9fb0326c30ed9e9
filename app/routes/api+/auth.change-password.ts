import { apiAction, apiFieldError, apiSuccess, parseBody, postOnlyLoader } from '#app/server/api.server.ts'
import { changePasswordWithToken } from '#app/services/auth/auth.server.ts'
import { clientAddress } from '#app/services/auth/session.server.ts'
import { ChangePasswordSchema } from '#app/utils/auth-schemas.ts'

const PASSWORD_UPDATED = 'Your password has been updated. Please log in with your new password.'

/** Sets a new password from a reset or pre-made link; every session of the account ends. */
export const action = apiAction(async ({ request }) => {
  const { password, token } = await parseBody(request, ChangePasswordSchema)
  const result = await changePasswordWithToken({ token, password, ip: clientAddress(request) })
  if (result.status === 'error') return apiFieldError(400, 'token', result.message)
  return apiSuccess(PASSWORD_UPDATED)
})

export const loader = postOnlyLoader
