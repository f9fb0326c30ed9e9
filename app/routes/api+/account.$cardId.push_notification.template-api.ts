import { apiError, apiFieldError, apiLoader, apiSuccess, getOnlyAction } from '#app/server/api.server.ts'
import { requireApiUserId } from '#app/services/auth/session.server.ts'
import { isUuid } from '#app/utils/uuid.ts'
import { getOwnedCard } from '#models/card.server.ts'
import { getTemplatesForOwner, listTemplatesForOwner, type TemplateView } from '#models/template.server.ts'

const MAX_IDS = 100
const HOW = 'Use templates=all, shared, own, or a comma-separated list of template ids.'
const GROUPS = { all: () => true, shared: (t: TemplateView) => t.shared, own: (t: TemplateView) => !t.shared } as const

/**
 * GET /api/account/{cardId}/push_notification/template-api?templates=…: the templates the owner may start from, by
 * group (`all`, `shared`, `own`) or by id (comma-separated; ids that are unknown or another owner's are left out).
 * Another owner's card is 404; a missing or malformed `templates` is 400.
 */
export const loader = apiLoader(async ({ request, params }) => {
  const userId = await requireApiUserId(request)
  const card = await getOwnedCard({ cardId: params.cardId, userId })
  if (!card) return apiError(404, 'Card not found')
  const asked = new URL(request.url).searchParams.get('templates')?.trim() ?? ''
  const refuse = (message: string) => apiFieldError(400, 'templates', message)
  if (asked === '') return refuse(`Say which templates you want. ${HOW}`)

  const group = asked.toLowerCase()
  let templates: TemplateView[]
  if (group in GROUPS) {
    templates = (await listTemplatesForOwner(userId)).filter(GROUPS[group as keyof typeof GROUPS])
  } else {
    const ids = [...new Set(asked.split(',').map((id) => id.trim().toLowerCase()))].filter((id) => id !== '')
    if (ids.length === 0) return refuse(`Say which templates you want. ${HOW}`)
    const malformed = ids.find((id): boolean => !isUuid(id))
    if (malformed !== undefined) return refuse(`“${malformed.slice(0, 60)}” is not a template id. ${HOW}`)
    if (ids.length > MAX_IDS) return refuse(`Ask for at most ${MAX_IDS} templates at once.`)
    templates = await getTemplatesForOwner({ ownerId: userId, templateIds: ids })
  }
  return apiSuccess('Templates', {
    templates: templates.map(({ id, title, body, link, shared }) => ({ id, title, body, link, shared })),
  })
})

export const action = getOnlyAction
