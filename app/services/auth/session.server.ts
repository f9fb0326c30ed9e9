import { createCookie, redirect } from '@remix-run/node'
import { getEnv } from '#app/server/env.server.ts'
import { notFound } from '#app/server/http-errors.server.ts'
import { getSessionSecrets } from '#app/server/secrets.server.ts'
import { STAFF_NOT_HERE } from '#app/utils/staff-not-here.ts'
import {
  createSession,
  deleteSessionByToken,
  deleteUserSessions,
  findSessionUser,
  SESSION_TTL_MS,
  type SessionUser,
} from '#models/session.server.ts'

let sessionCookie: ReturnType<typeof createCookie> | undefined

/** The session cookie: only a random token, signed, HttpOnly, SameSite=Lax, Secure when APP_URL is https. */
function getSessionCookie() {
  sessionCookie ??= createCookie('__session', {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: getEnv().APP_URL.startsWith('https://'),
    secrets: getSessionSecrets(),
    maxAge: SESSION_TTL_MS / 1000,
  })
  return sessionCookie
}

/** The session token from a Cookie header (signature checked), or null. */
export async function readSessionToken(cookieHeader: string | null): Promise<string | null> {
  const value = await getSessionCookie().parse(cookieHeader)
  return typeof value === 'string' && value.length > 20 ? value : null
}

const readToken = (request: Request) => readSessionToken(request.headers.get('Cookie'))

const memo = new WeakMap<Request, Promise<SessionUser | null>>()

/** The signed-in user's session, looked up once per request however many loaders ask. */
export function getSession(request: Request) {
  let pending = memo.get(request)
  if (!pending) {
    pending = readToken(request).then((token) => (token ? findSessionUser(token) : null))
    memo.set(request, pending)
  }
  return pending
}

export async function getUserId(request: Request): Promise<string | null> {
  return (await getSession(request))?.userId ?? null
}

// The one check of redirectTo for every caller (login, social sign-in, notifications, contact-us).
export { safeRedirectPath } from '#app/server/safe-redirect.server.ts'

function loginRedirect(request: Request): Response {
  const url = new URL(request.url)
  const redirectTo = `${url.pathname}${url.search}`
  return redirect(`/login?${new URLSearchParams({ redirectTo })}`)
}

/**
 * Pages of owners (and admins): a guest is sent to /login and brought back afterwards. A staff member gets 404, as
 * for another owner's record (docs/product/staff-locations-rules.md): every owner page asks this, so no
 * page can forget to refuse them.
 */
export async function requireUserId(request: Request): Promise<string> {
  const session = await getSession(request)
  if (!session) throw loginRedirect(request)
  if (session.role === 'staff') throw notFound(STAFF_NOT_HERE)
  return session.userId
}

/** JSON calls: a guest gets 401 (the specification's clients redirect to /login themselves); staff get 404. */
export async function requireApiUserId(request: Request): Promise<string> {
  const session = await getSession(request)
  if (session?.role === 'staff') {
    throw Response.json({ status: 'error', message: 'Not found', msg: 'Not found', errors: {} }, { status: 404 })
  }
  if (session) return session.userId
  throw Response.json(
    { status: 'error', message: 'Please sign in', msg: 'Please sign in', errors: {} },
    { status: 401 },
  )
}

export type StaffMember = { staffId: string; ownerId: string }

/** The staff pages (/staff...): a guest is sent to /login; an owner or admin gets 404 (they stamp at /account). */
export async function requireStaff(request: Request): Promise<StaffMember> {
  const session = await getSession(request)
  if (!session) throw loginRedirect(request)
  if (session.role !== 'staff' || !session.employerId) throw notFound()
  return { staffId: session.userId, ownerId: session.employerId }
}

export async function signIn(request: Request, userId: string): Promise<string> {
  const { token } = await createSession({
    userId,
    userAgent: request.headers.get('User-Agent'),
    ip: clientAddress(request),
  })
  return getSessionCookie().serialize(token)
}

export async function signOut(request: Request): Promise<string> {
  const token = await readToken(request)
  if (token) await deleteSessionByToken(token)
  return getSessionCookie().serialize('', { maxAge: 0 })
}

/** After a password change: every other browser of that user is signed out. */
export async function endOtherSessions(request: Request, userId: string) {
  const current = await getSession(request)
  await deleteUserSessions(userId, { except: current?.userId === userId ? current.sessionId : undefined })
}

/** Express puts the client address (honouring TRUST_PROXY) in this header before Remix sees the request. */
export function clientAddress(request: Request): string {
  return request.headers.get('X-Stampwise-Client-Ip') ?? 'unknown'
}
