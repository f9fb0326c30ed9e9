import { redirect, type LoaderFunctionArgs } from '@remix-run/node'
import { invariantResponse } from '#app/server/http-errors.server.ts'
import { readRememberedPassId } from '#app/services/passes/pass-cookie.server.ts'
import { getHolderData } from '#models/holder-data.server.ts'

/**
 * 'Download my data' (issue 34): everything kept about the holder of a pass, as JSON. Only the browser that got the
 * card may download it (its join cookie, sent only under /c, names the pass), as only it may remove the card
 * (docs/decisions/027-holder-pass-page-ownership.md): the pass's address alone shows the card, not the holder's
 * e-mail or phone. Another browser is sent back to the data page, which says why.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const found = await getHolderData(params.passId ?? '')
  invariantResponse(found, 'Card not found')
  const { cardId, data } = found
  const passId = params.passId!
  if ((await readRememberedPassId(request, cardId)) !== passId) {
    throw redirect(`/p/${passId}/data?download=refused`, 303)
  }
  const body = JSON.stringify({ exportedAt: new Date().toISOString(), ...data }, null, 2)
  return new Response(body, {
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Disposition': `attachment; filename="stampwise-card-${data.pass.shortCode}.json"`,
      'Cache-Control': 'private, no-store',
    },
  })
}
