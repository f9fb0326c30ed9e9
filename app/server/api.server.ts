import { type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { type z } from 'zod'
import { RateLimitedError } from './rate-limited-error.server.ts'

/**
 * The JSON calls' one answer shape (docs/product/contracts.md, "JSON answers"):
 * `{"status", "message", "msg", "errors": {field: [messages]}}` plus the call's data. `msg` repeats `message`
 * because the specification's clients read one or the other.
 */
export type ApiStatus = 'success' | 'error' | 'premaid'
export type FieldErrors = Record<string, string[]>

const MAX_BODY_BYTES = 64 * 1024

export function apiAnswer(
  status: ApiStatus,
  message: string,
  { errors = {}, data = {}, init }: { errors?: FieldErrors; data?: Record<string, unknown>; init?: ResponseInit } = {},
): Response {
  return Response.json({ status, message, msg: message, errors, ...data }, init)
}

export const apiSuccess = (message: string, data?: Record<string, unknown>, init?: ResponseInit) =>
  apiAnswer('success', message, { data, init })

export const apiError = (
  httpStatus: number,
  message: string,
  options: { errors?: FieldErrors; data?: Record<string, unknown>; headers?: HeadersInit } = {},
) =>
  apiAnswer('error', message, {
    errors: options.errors,
    data: options.data,
    init: { status: httpStatus, headers: options.headers },
  })

/** A refused submission: the message, also as the one field's error (the pages' forms show it beside that field). */
export const apiFieldError = (
  httpStatus: number,
  field: string,
  message: string,
  options: { data?: Record<string, unknown>; headers?: HeadersInit } = {},
) => apiError(httpStatus, message, { ...options, errors: { [field]: [message] } })

/** 405 with the Allow header; a GET-only call lists HEAD too, since Remix answers it with the loader. */
export function methodNotAllowed(allowed: string[]): Response {
  return apiError(405, `Method not allowed. Use ${allowed.join(' or ')}.`, { headers: { Allow: allowed.join(', ') } })
}

/** A thrown answer: the route stops and the wrapper sends it. */
class ApiAnswerError extends Error {
  constructor(readonly response: Response) {
    super('api answer')
  }
}

/** Reads the body as JSON, or as a form (the specification's clients send their payloads "as is"). */
export async function readBody(request: Request): Promise<Record<string, unknown>> {
  const declared = Number(request.headers.get('Content-Length') ?? 0)
  if (declared > MAX_BODY_BYTES) throw new ApiAnswerError(apiError(413, 'The request body is too large'))
  const bytes = await readLimited(request)
  const contentType = request.headers.get('Content-Type')?.toLowerCase() ?? ''

  if (contentType.startsWith('application/x-www-form-urlencoded')) {
    return formToObject(new URLSearchParams(new TextDecoder().decode(bytes)))
  }
  if (contentType.startsWith('multipart/form-data')) {
    const form = await new Response(bytes, { headers: { 'Content-Type': contentType } }).formData().catch(() => null)
    if (!form) throw new ApiAnswerError(apiError(400, 'The form data could not be read'))
    return formToObject(form)
  }
  // Anything else is read as JSON, whatever it claims to be (fetch sends a string body as text/plain).
  const text = new TextDecoder().decode(bytes).trim()
  if (text === '') return {}
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new ApiAnswerError(apiError(400, 'The request body is not valid JSON'))
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ApiAnswerError(apiError(400, 'The request body must be a JSON object'))
  }
  return value as Record<string, unknown>
}

async function readLimited(request: Request): Promise<Uint8Array<ArrayBuffer>> {
  if (!request.body) return new Uint8Array()
  const chunks: Uint8Array[] = []
  let size = 0
  const reader = request.body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_BODY_BYTES) {
      await reader.cancel()
      throw new ApiAnswerError(apiError(413, 'The request body is too large'))
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return bytes
}

function formToObject(form: URLSearchParams | FormData): Record<string, unknown> {
  const result: Record<string, unknown> = {}
  for (const [key, value] of form.entries()) {
    // The first value wins; a file where text is expected is left for the schema to refuse.
    if (!(key in result)) result[key] = typeof value === 'string' ? value : null
  }
  return result
}

/** Reads and validates the body; invalid input stops the call with 400 and the schema's messages per field. */
export async function parseBody<Schema extends z.ZodType>(request: Request, schema: Schema): Promise<z.output<Schema>> {
  const body = await readBody(request)
  const result = await schema.safeParseAsync(body)
  if (result.success) return result.data
  const errors: FieldErrors = {}
  for (const issue of result.error.issues) {
    const field = issue.path.length ? String(issue.path[0]) : 'form'
    const messages = (errors[field] ??= [])
    if (!messages.includes(issue.message)) messages.push(issue.message)
  }
  throw new ApiAnswerError(apiError(400, result.error.issues[0]?.message ?? 'Invalid input', { errors }))
}

function rateLimitedAnswer(error: RateLimitedError) {
  return apiError(429, error.message, {
    headers: { 'Retry-After': String(Math.max(1, Math.ceil(error.retryAfterSeconds))) },
  })
}

type Handler<Args> = (args: Args) => Promise<Response>

/** Turns thrown answers, RateLimitedError and thrown Responses into the answer, never cached. */
async function answer<Args extends LoaderFunctionArgs | ActionFunctionArgs>(
  args: Args,
  handler: Handler<Args>,
): Promise<Response> {
  let response: Response
  try {
    response = await handler(args)
  } catch (error) {
    if (error instanceof ApiAnswerError) response = error.response
    else if (error instanceof RateLimitedError) response = rateLimitedAnswer(error)
    else if (error instanceof Response) response = error
    else throw error
  }
  response.headers.set('Cache-Control', 'no-store')
  return response
}

/** The loader of a GET call. */
export const apiLoader = (handler: (args: LoaderFunctionArgs) => Promise<Response>) => (args: LoaderFunctionArgs) =>
  answer(args, handler)

/** The action of a GET-only call: Remix sends every other method (POST, PUT, DELETE…) to the action. */
export const getOnlyAction = (args: ActionFunctionArgs) => answer(args, async () => methodNotAllowed(['GET', 'HEAD']))

/**
 * The action of a POST call: other methods answer 405 before the handler runs. A cross-site POST never gets here:
 * the request guards answer it 403 (cross-site-guard.server.ts).
 */
export const apiAction = (handler: (args: ActionFunctionArgs) => Promise<Response>) => (args: ActionFunctionArgs) =>
  answer(args, async () => {
    if (args.request.method !== 'POST') return methodNotAllowed(['POST'])
    return handler(args)
  })

/** The loader of a POST-only call (GET and HEAD reach the loader). */
export const postOnlyLoader = (args: LoaderFunctionArgs) => answer(args, async () => methodNotAllowed(['POST']))

type ActionMethod = 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** The action of a call that takes several methods on one address (POST and DELETE, say); others answer 405. */
export const apiMethodsAction =
  (handlers: Partial<Record<ActionMethod, (args: ActionFunctionArgs) => Promise<Response>>>) =>
  (args: ActionFunctionArgs) =>
    answer(args, async () => {
      const handler = handlers[args.request.method.toUpperCase() as ActionMethod]
      if (!handler) return methodNotAllowed(Object.keys(handlers))
      return handler(args)
    })
