import { apiAction, apiFieldError, apiSuccess, parseBody, postOnlyLoader } from '#app/server/api.server.ts'
import { signUp } from '#app/services/auth/auth.server.ts'
import { clientAddress } from '#app/services/auth/session.server.ts'
import { SignupSchema } from '#app/utils/auth-schemas.ts'

/** Creates an account with a trial and mails the confirmation link; the client goes on to /verify-email?email=. */
export const action = apiAction(async ({ request }) => {
  // timeZone: optional, beside the specification's fields (an IANA name; anything else means UTC).
  // withdrawInvitation: true makes an own account for an address with a pending staff invitation (ADR 052).
  const { email, password, timeZone, withdrawInvitation } = await parseBody(request, SignupSchema)
  const result = await signUp({ email, password, timeZone, withdrawInvitation, ip: clientAddress(request) })
  if (result.status === 'error') return apiFieldError(400, result.field, result.message)
  if (result.status === 'invited') return apiFieldError(409, 'email', result.message)
  return apiSuccess('We sent you a link to confirm your email', { email: result.email }, { status: 201 })
})

export const loader = postOnlyLoader
