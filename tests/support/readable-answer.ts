/**
 * What "a 4xx carries a message a person can read" means for Stampwise (docs/decisions/022-bad-input.md):
 *
 * - a JSON answer (application/json) is an object with a `message` or `error` string holding a word — the JSON
 *   calls' one shape has `message` (docs/product/contracts.md, "JSON answers");
 * - an HTML answer (text/html) is a page with at least one element meant to show an error that holds a word: an
 *   element with role="alert" (form errors, the failure screen), a field's error (class "field-error"), or an
 *   error screen (class "error-screen": not found, forbidden); an answer that refuses the whole page (403, 404,
 *   410: a route's own "no longer available" page, say) may instead say so in its <h1>;
 * - any other answer (plain text, an empty body) has no message a browser shows well, and fails.
 *
 * A JSON call (/api/…, and the pass's push-subscription call) must answer JSON.
 */
const WORD = /\p{L}{2,}/u

/** Why the 4xx answer has no readable message, or null when it has one. */
export function unreadableReason(address: string, response: Response, text: string): string | null {
  const contentType = response.headers.get('Content-Type') ?? ''
  const isJsonCall = address.startsWith('/api/') || /^\/p\/[^/]+\/push-subscription/.test(address)
  if (contentType.startsWith('application/json')) return jsonReason(text)
  if (isJsonCall) return `a JSON call answered ${contentType || 'no Content-Type'}`
  if (contentType.startsWith('text/html')) return htmlReason(text, response.status)
  return `an answer of type ${contentType || '(none)'} is no message a person reads: ${JSON.stringify(text.slice(0, 80))}`
}

function jsonReason(text: string): string | null {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return `the JSON answer does not parse: ${JSON.stringify(text.slice(0, 80))}`
  }
  if (typeof value !== 'object' || value === null) return `the JSON answer is not an object: ${text.slice(0, 80)}`
  const { message, error } = value as { message?: unknown; error?: unknown }
  const said = [message, error].find((candidate) => typeof candidate === 'string' && WORD.test(candidate))
  return said ? null : `the JSON answer has no message or error: ${text.slice(0, 120)}`
}

/** Elements that show an error: the opening tag's attributes mark them. */
const ERROR_ELEMENT = /<(\w+)\b([^>]*)>/g
const MARKS_ERROR = /\brole="alert"|\bclass="[^"]*\b(field-error|form-message--error|error-screen)\b/

const PAGE_REFUSALS = [403, 404, 410]
const HEADING = /<h1\b[^>]*>([\s\S]*?)<\/h1>/

function htmlReason(html: string, status: number): string | null {
  // The page as rendered: scripts (the hydration data repeats the action's data) do not count.
  const body = html.replace(/<script\b[\s\S]*?<\/script>/g, '')
  for (const match of body.matchAll(ERROR_ELEMENT)) {
    const [, tag, attributes] = match
    if (!MARKS_ERROR.test(attributes!)) continue
    const rest = body.slice(match.index! + match[0].length)
    const end = rest.indexOf(`</${tag}>`)
    const inner = (end === -1 ? rest : rest.slice(0, end)).replace(/<[^>]*>/g, ' ')
    if (WORD.test(decodeEntities(inner))) return null
  }
  const heading = HEADING.exec(body)?.[1]?.replace(/<[^>]*>/g, ' ')
  if (PAGE_REFUSALS.includes(status) && heading && WORD.test(decodeEntities(heading))) return null
  return 'the HTML page shows no error message (no role="alert", field error or error screen with text)'
}

const decodeEntities = (text: string) => text.replace(/&(#\d+|#x[0-9a-f]+|\w+);/gi, ' ')
