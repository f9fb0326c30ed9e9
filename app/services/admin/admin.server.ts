import { forbidden } from '#app/server/http-errors.server.ts'
import { requireApiUserId, requireUserId } from '#app/services/auth/session.server.ts'
import { getUserRole, setRoleByEmail } from '#models/user.server.ts'

/**
 * The admin role (docs/product/hardening.md, "Admin role": the specification's /admin pages need the admin role, not
 * only a session). Checked on the server by every admin loader and action, not by the layout alone: Remix runs a child
 * route's loader and action without its parent's. A guest is sent to /login, an owner gets 403.
 */
export const ADMIN_ONLY = 'This page is for Stampwise administrators'

async function isAdmin(userId: string) {
  return (await getUserRole(userId)) === 'admin'
}

/** Admin pages: the admin's user id; a guest is redirected to /login, anyone else gets 403. */
export async function requireAdmin(request: Request): Promise<string> {
  const userId = await requireUserId(request)
  if (!(await isAdmin(userId))) throw forbidden(ADMIN_ONLY)
  return userId
}

/** Admin JSON calls: 401 for a guest, 403 for anyone else, in the JSON answer shape. */
export async function requireApiAdmin(request: Request): Promise<string> {
  const userId = await requireApiUserId(request)
  if (!(await isAdmin(userId))) {
    throw Response.json({ status: 'error', message: ADMIN_ONLY, msg: ADMIN_ONLY, errors: {} }, { status: 403 })
  }
  return userId
}

/** `npm run admin -- grant|revoke <email>`: false when no user has that e-mail. */
export async function setAdminRole(email: string, admin: boolean): Promise<{ found: boolean; changed: boolean }> {
  return setRoleByEmail(email, admin ? 'admin' : 'owner')
}
