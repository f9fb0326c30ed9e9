import { apiAction, apiFieldError, apiSuccess, parseBody, postOnlyLoader } from '#app/server/api.server.ts'
import { confirmEmailWithToken } from '#app/services/auth/auth.server.ts'
import { clientAddress } from '#app/services/auth/session.server.ts'
import { TokenSchema } from '#app/utils/auth-schemas.ts'

/** Confirms an e-mail address from its link; idempotent, so opening the link twice still answers success. */
export const action = apiAction(async ({ request }) => {
  const { token } = await parseBody(request, TokenSchema)
  const result = await confirmEmailWithToken({ token, ip: clientAddress(request) })
  if (result.status === 'error') return apiFieldError(400, 'token', result.message)
  return apiSuccess(result.message)
})

export const loader = postOnlyLoader
