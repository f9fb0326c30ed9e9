import { apiAction, apiSuccess, postOnlyLoader } from '#app/server/api.server.ts'
import { signOut } from '#app/services/auth/session.server.ts'

/** Ends this browser's session and clears its cookie; answers success for a guest too. */
export const action = apiAction(async ({ request }) => {
  const cookie = await signOut(request)
  return apiSuccess('You are signed out', {}, { headers: { 'Set-Cookie': cookie } })
})

export const loader = postOnlyLoader
