/**
 * The one 404 answer of the pages and downloads (the JSON calls answer with apiError, api.server.ts). It returns the
 * Response so a loader can `throw notFound('Card not found')` to reach the error boundary, and a resource route can
 * return it; the text is the body a plain request sees (the page shows the not-found screen).
 */
export function notFound(message = 'Not found', headers?: HeadersInit): Response {
  return new Response(message, { status: 404, headers })
}

/** The one 403 answer of the pages: a signed-in person who may not do this (an owner on /admin, …). */
export function forbidden(message = 'Forbidden', headers?: HeadersInit): Response {
  return new Response(message, { status: 403, headers })
}

/**
 * Goes on only when `condition` holds; otherwise throws the answer (404 unless `init` says otherwise) for the error
 * boundary: `invariantResponse(card, 'Card not found')` narrows `card` for the rest of the loader.
 */
export function invariantResponse(
  condition: unknown,
  message: string,
  init: ResponseInit = { status: 404 },
): asserts condition {
  if (!condition) throw new Response(message, init)
}
