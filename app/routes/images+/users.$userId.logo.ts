import { type LoaderFunctionArgs } from '@remix-run/node'
import { notFound } from '#app/server/http-errors.server.ts'
import { getUserId } from '#app/services/auth/session.server.ts'
import { isUuid } from '#app/utils/uuid.ts'
import { getPublicUser, getUserLogo } from '#models/user.server.ts'

/**
 * A user's profile logo, for that user themself or an admin; anyone else (a guest included) gets 404, so nobody
 * learns whose logo exists. The address carries the version (?v=), so the image is cached for good.
 * X-Content-Type-Options: nosniff comes with every answer from server.ts (helmet).
 */

export async function loader({ request, params }: LoaderFunctionArgs) {
  const missing = () => notFound('Not found', { 'Cache-Control': 'no-store' })
  const viewerId = await getUserId(request)
  const userId = params.userId ?? ''
  if (!viewerId || !isUuid(userId)) return missing()
  if (viewerId !== userId && (await getPublicUser(viewerId))?.role !== 'admin') return missing()
  const logo = await getUserLogo(userId)
  if (!logo) return missing()
  // An old version's address answers with the current image, but must not keep it for a year.
  const current = new URL(request.url).searchParams.get('v') === String(logo.updatedAt.getTime())
  return new Response(new Uint8Array(logo.data), {
    headers: {
      'Content-Type': logo.contentType,
      'Content-Length': String(logo.data.byteLength),
      'Cache-Control': current ? 'private, max-age=31536000, immutable' : 'private, no-cache',
      'Content-Disposition': 'inline',
    },
  })
}
