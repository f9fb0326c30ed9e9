import { apiAction, apiSuccess, parseBody, postOnlyLoader } from '#app/server/api.server.ts'
import { requestPasswordReset } from '#app/services/auth/auth.server.ts'
import { clientAddress } from '#app/services/auth/session.server.ts'
import { ForgotPasswordSchema } from '#app/utils/auth-schemas.ts'

const RESET_LINK_SENT = 'If an account exists for this email, we sent it a link to reset the password.'

/** Mails a reset link; the answer is the same whether or not the address has an account. */
export const action = apiAction(async ({ request }) => {
  const { email } = await parseBody(request, ForgotPasswordSchema)
  await requestPasswordReset({ email, ip: clientAddress(request) })
  return apiSuccess(RESET_LINK_SENT)
})

export const loader = postOnlyLoader
