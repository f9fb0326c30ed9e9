import { apiAction, apiAnswer, apiFieldError, apiSuccess, parseBody, postOnlyLoader } from '#app/server/api.server.ts'
import { logIn } from '#app/services/auth/auth.server.ts'
import { clientAddress, signIn } from '#app/services/auth/session.server.ts'
import { LoginSchema } from '#app/utils/auth-schemas.ts'
import { countOwnerCards } from '#models/card.server.ts'

const PREMADE_MESSAGE = 'Please choose your own password to continue'

/**
 * Signs in with e-mail and password. `total_cards` lets the client choose /main (no card yet) or /account;
 * a pre-made account answers 'premaid' with the token for /change-password?token=.
 */
export const action = apiAction(async ({ request }) => {
  const { email, password } = await parseBody(request, LoginSchema)
  const result = await logIn({ email, password, ip: clientAddress(request) })
  if (result.status === 'premaid') {
    return apiAnswer('premaid', PREMADE_MESSAGE, { data: { token: result.token } })
  }
  if (result.status === 'error' && result.code === 'unconfirmed') {
    return apiFieldError(403, 'email', result.message, {
      data: { verify_email_url: `/verify-email?${new URLSearchParams({ email })}` },
    })
  }
  if (result.status === 'error') return apiFieldError(401, 'password', result.message)

  const cookie = await signIn(request, result.userId)
  const totalCards = await countOwnerCards(result.userId)
  return apiSuccess('You are signed in', { total_cards: totalCards }, { headers: { 'Set-Cookie': cookie } })
})

export const loader = postOnlyLoader
