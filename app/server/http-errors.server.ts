/**
 * The one 404 answer of the pages and downloads (the JSON calls answer with apiError, api.server.ts). It returns the
 * Response so a loader can `throw notFound('Card not found')` to reach the error boundary, and a resource route can
 * return it; the text is the body a plain request sees (the page shows the not-found screen).
 */
export function notFound(message = 'Not found', headers?: HeadersInit): Response {
  return new Response(message, { status: 404, headers })
}
