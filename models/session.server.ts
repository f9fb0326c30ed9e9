import crypto from 'node:crypto'
import {
  DataTypes,
  Model,
  Op,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
} from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { ACTOR_LOCATIONS_ORDER, actorLocationsCondition } from './locations.server.ts'
import { employerDisabledAt } from './user.server.ts'

export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000

/**
 * A signed-in browser. The cookie carries a random token; only its SHA-256 is stored, so a leaked table signs nobody
 * in.
 */
export class Session extends Model<InferAttributes<Session>, InferCreationAttributes<Session>> {
  declare id: CreationOptional<string>
  declare userId: string
  declare tokenHash: string
  declare expiresAt: Date
  declare userAgent: string | null
  declare ip: string | null
  declare createdAt: CreationOptional<Date>
  declare updatedAt: CreationOptional<Date>
}

Session.init(
  {
    id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
    userId: { type: DataTypes.UUID, allowNull: false },
    tokenHash: { type: DataTypes.TEXT, allowNull: false },
    expiresAt: { type: DataTypes.DATE, allowNull: false },
    userAgent: { type: DataTypes.TEXT, allowNull: true },
    ip: { type: DataTypes.TEXT, allowNull: true },
    createdAt: DataTypes.DATE,
    updatedAt: DataTypes.DATE,
  },
  { sequelize: getSequelize(), tableName: 'sessions', underscored: true },
)

export const hashToken = (token: string) => crypto.createHash('sha256').update(token).digest('base64url')

export async function createSession(input: { userId: string; userAgent?: string | null; ip?: string | null }) {
  const token = crypto.randomBytes(32).toString('base64url')
  const expiresAt = new Date(Date.now() + SESSION_TTL_MS)
  await Session.create({
    userId: input.userId,
    tokenHash: hashToken(token),
    expiresAt,
    userAgent: input.userAgent?.slice(0, 300) ?? null,
    ip: input.ip ?? null,
  })
  return { token, expiresAt }
}

export type SessionUser = {
  sessionId: string
  userId: string
  role: 'owner' | 'admin' | 'staff'
  /** Staff only: the owner whose cards they stamp. */
  employerId: string | null
  /**
   * The locations this user may stamp at (models/locations.server.ts, oldest first): looked up with the session, so
   * the counter's stamp checks its location without a database round trip of its own (docs/decisions/049).
   */
  locationIds: string[]
}

/**
 * Who is behind a session token, when the session is live and its user neither disabled nor, for staff, suspended,
 * removed (migration 0014) or working for a disabled owner: removing or suspending a staff member, or disabling their
 * employer, ends their sessions at once, whatever rows remain.
 */
export async function findSessionUser(token: string): Promise<SessionUser | null> {
  const [row] = await getSequelize().query<{
    session_id: string
    user_id: string
    role: SessionUser['role']
    employer_id: string | null
    location_ids: string[]
  }>(
    `select s.id as session_id, s.user_id, u.role, u.employer_id,
            array(select l.id from locations l
                  where ${actorLocationsCondition('coalesce(u.employer_id, u.id)', "case when u.role = 'staff' then u.id end")}
                  order by ${ACTOR_LOCATIONS_ORDER}) as location_ids
     from sessions s join users u on u.id = s.user_id
     where s.token_hash = :hash and s.expires_at > now() and u.disabled_at is null
       and u.suspended_at is null and u.removed_at is null
       and ${employerDisabledAt('u')} is null`,
    { replacements: { hash: hashToken(token) }, type: 'SELECT' as never },
  )
  return row
    ? {
        sessionId: row.session_id,
        userId: row.user_id,
        role: row.role,
        employerId: row.employer_id,
        locationIds: row.location_ids,
      }
    : null
}

export async function deleteSessionByToken(token: string) {
  await Session.destroy({ where: { tokenHash: hashToken(token) } })
}

/**
 * For the card page's render cache: as findSessionUserVersion, for one of the user's cards (null when the card is
 * not theirs: Remix answers that), with what the content version does not follow: the staff the people filter lists
 * (users of their own; the locations move cards.locations_changed_at, which it does follow). The wallet counts move
 * it (migration 0021).
 */
export async function findSessionCardPageVersion(
  token: string,
  cardId: string,
): Promise<{ userId: string; contentVersion: string; updatedAt: Date; untrackedVersion: string } | null> {
  const [row] = await getSequelize().query<{
    user_id: string
    content_version: string
    updated_at: Date
    untracked_version: string
  }>(
    `select u.id as user_id, u.content_version, u.updated_at,
       (select count(*) || '.' || coalesce(max(extract(epoch from s.updated_at)), 0)
        from users s where s.employer_id = u.id) as untracked_version
     from sessions se join users u on u.id = se.user_id
     where se.token_hash = :hash and se.expires_at > now() and u.disabled_at is null and u.role <> 'staff'
       and exists (select 1 from cards c where c.id = :cardId and c.user_id = u.id)`,
    { replacements: { hash: hashToken(token), cardId }, type: 'SELECT' as never },
  )
  return row
    ? {
        userId: row.user_id,
        contentVersion: row.content_version,
        updatedAt: new Date(row.updated_at),
        untrackedVersion: row.untracked_version,
      }
    : null
}

/** Ends every session of a user except, optionally, the one making the request (password change). */
export async function deleteUserSessions(userId: string, { except }: { except?: string } = {}) {
  await Session.destroy({ where: { userId, ...(except ? { id: { [Op.ne]: except } } : {}) } })
}

export async function deleteExpiredSessions() {
  return Session.destroy({ where: { expiresAt: { [Op.lt]: new Date() } } })
}

/**
 * For the /account page cache: the user behind a live session token, with what moves when the page would change
 * (`users.content_version`, moved by database triggers, and `users.updated_at`), in one query.
 */
export async function findSessionUserVersion(
  token: string,
): Promise<{ userId: string; contentVersion: string; updatedAt: Date } | null> {
  const [row] = await getSequelize().query<{ user_id: string; content_version: string; updated_at: Date }>(
    `select u.id as user_id, u.content_version, u.updated_at
     from sessions se join users u on u.id = se.user_id
     where se.token_hash = :hash and se.expires_at > now() and u.disabled_at is null and u.role <> 'staff'`,
    { replacements: { hash: hashToken(token) }, type: 'SELECT' as never },
  )
  return row ? { userId: row.user_id, contentVersion: row.content_version, updatedAt: new Date(row.updated_at) } : null
}
