import { apiAction, apiError, apiSuccess, postOnlyLoader } from '#app/server/api.server.ts'
import { requireApiUserId } from '#app/services/auth/session.server.ts'
import { deleteCard } from '#app/services/cards/card-delete.server.ts'

/**
 * POST /api/account/delete/{id}: deletes one of the owner's cards with its passes (docs/product/contracts.md, "JSON
 * answers"; the page asks for a typed confirmation first). Another owner's card, or none, is 404.
 */
export const action = apiAction(async ({ request, params }) => {
  const userId = await requireApiUserId(request)
  if (!(await deleteCard({ cardId: params.id ?? '', userId }))) return apiError(404, 'Card not found')
  return apiSuccess('Card deleted')
})

export const loader = postOnlyLoader
