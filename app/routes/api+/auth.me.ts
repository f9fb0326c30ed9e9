import { apiError, apiLoader, apiSuccess, getOnlyAction } from '#app/server/api.server.ts'
import { requireApiUserId } from '#app/services/auth/session.server.ts'
import { countOwnerCards } from '#models/card.server.ts'
import { getPublicUser } from '#models/user.server.ts'

/** The signed-in user (docs/product/contracts.md, "JSON answers"); 401 for a guest. */
export const loader = apiLoader(async ({ request }) => {
  const userId = await requireApiUserId(request)
  const [user, totalCards] = await Promise.all([getPublicUser(userId), countOwnerCards(userId)])
  if (!user) return apiError(401, 'Please sign in')
  return apiSuccess('Signed in', {
    user: {
      id: user.id,
      email: user.email,
      role: user.role,
      total_cards: totalCards,
      email_confirmed: user.emailConfirmed,
      user_logo: user.logoUrl,
    },
  })
})

export const action = getOnlyAction
