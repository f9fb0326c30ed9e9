import { QueryTypes } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { requireApiUserId, requireUserId } from '#app/services/auth/session.server.ts'

/**
 * The admin role (DECISIONS.md: the specification's /admin pages need the admin role, not only a session). Checked
 * on the server by every admin loader and action, not by the layout alone: Remix runs a child route's loader and
 * action without its parent's. A guest is sent to /login, an owner gets 403.
 */
export const ADMIN_ONLY = 'This page is for Stampwise administrators'

async function isAdmin(userId: string) {
  const [row] = await getSequelize().query<{ role: string }>(`select role from users where id = :userId`, {
    replacements: { userId },
    type: QueryTypes.SELECT,
  })
  return row?.role === 'admin'
}

/** Admin pages: the admin's user id; a guest is redirected to /login, anyone else gets 403. */
export async function requireAdmin(request: Request): Promise<string> {
  const userId = await requireUserId(request)
  if (!(await isAdmin(userId))) throw new Response(ADMIN_ONLY, { status: 403 })
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
  const rows = await getSequelize().query<{ changed: boolean }>(
    `with target as (select id, role from users where email = lower(trim(:email)))
     update users u set role = :role from target where u.id = target.id
     returning target.role <> :role as changed`,
    { replacements: { email, role: admin ? 'admin' : 'owner' }, type: QueryTypes.SELECT },
  )
  return { found: rows.length > 0, changed: rows[0]?.changed ?? false }
}
