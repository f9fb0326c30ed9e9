import { apiAction, apiFieldError, apiSuccess, parseBody, postOnlyLoader } from '#app/server/api.server.ts'
import { checkPasswordResetToken, tokenError } from '#app/services/auth/auth.server.ts'
import { clientAddress } from '#app/services/auth/session.server.ts'
import { TokenSchema } from '#app/utils/auth-schemas.ts'

/** Tells the change-password page whether its link still works, without using it. */
export const action = apiAction(async ({ request }) => {
  const { token } = await parseBody(request, TokenSchema)
  const problem = tokenError(await checkPasswordResetToken({ token, ip: clientAddress(request) }))
  if (problem) return apiFieldError(400, 'token', problem)
  return apiSuccess('This link is valid')
})

export const loader = postOnlyLoader
