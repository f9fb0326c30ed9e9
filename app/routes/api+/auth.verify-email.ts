import { apiAction, apiSuccess, parseBody, postOnlyLoader } from '#app/server/api.server.ts'
import { resendConfirmation } from '#app/services/auth/auth.server.ts'
import { clientAddress } from '#app/services/auth/session.server.ts'
import { ResendSchema } from '#app/utils/auth-schemas.ts'

const CONFIRMATION_RESENT = 'Email has been sent successfully'

/** Resends the confirmation link; answers alike for unknown or confirmed addresses, so it reveals no account. */
export const action = apiAction(async ({ request }) => {
  const { email } = await parseBody(request, ResendSchema)
  await resendConfirmation({ email, ip: clientAddress(request) })
  return apiSuccess(CONFIRMATION_RESENT)
})

export const loader = postOnlyLoader
