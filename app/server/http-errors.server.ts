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
 * A refusal as plain text where there is no page to show it on: a download's bad filter (400), a sign-in link
 * followed past its rate limit (429, with Retry-After in `headers`).
 */
export function textRefusal(status: number, message: string, headers?: Record<string, string>): Response {
  return new Response(message, { status, headers: { ...headers, 'Content-Type': 'text/plain; charset=utf-8' } })
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
