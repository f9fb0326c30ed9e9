import {
  DataTypes,
  Model,
  literal,
  Op,
  QueryTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Transaction,
} from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'

/** Staff (migration 0014) stamp an owner's cards; the admin command gives only 'owner' or 'admin'. */
export type Role = 'owner' | 'admin' | 'staff'

export class User extends Model<InferAttributes<User>, InferCreationAttributes<User>> {
  declare id: CreationOptional<string>
  declare role: CreationOptional<Role>
  declare email: string
  declare passwordHash: string | null
  declare emailConfirmedAt: Date | null
  declare logo: CreationOptional<Buffer | null>
  declare logoContentType: CreationOptional<string | null>
  declare logoUpdatedAt: CreationOptional<Date | null>
  declare googleSubject: CreationOptional<string | null>
  declare appleSubject: CreationOptional<string | null>
  declare isPremade: CreationOptional<boolean>
  declare disabledAt: CreationOptional<Date | null>
  /** The business's IANA time zone (migration 0012): days, charts and "this month" on pages use it. */
  declare timeZone: CreationOptional<string>
  /** Staff only (migration 0014): the owner who invited them, and what the owner calls them. */
  declare employerId: CreationOptional<string | null>
  declare staffName: CreationOptional<string | null>
  /** A pending invitation (no password yet) holds a seat until then. */
  declare invitationExpiresAt: CreationOptional<Date | null>
  /** Over the seats after a downgrade: cannot sign in. */
  declare suspendedAt: CreationOptional<Date | null>
  /** Removed by the owner: kept for the activity, its address free again (unique among users not removed). */
  declare removedAt: CreationOptional<Date | null>
  declare createdAt: CreationOptional<Date>
  declare updatedAt: CreationOptional<Date>
}

User.init(
  {
    id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
    role: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'owner' },
    email: { type: DataTypes.TEXT, allowNull: false },
    passwordHash: { type: DataTypes.TEXT, allowNull: true },
    emailConfirmedAt: { type: DataTypes.DATE, allowNull: true },
    logo: { type: DataTypes.BLOB, allowNull: true },
    logoContentType: { type: DataTypes.TEXT, allowNull: true },
    logoUpdatedAt: { type: DataTypes.DATE, allowNull: true },
    googleSubject: { type: DataTypes.TEXT, allowNull: true },
    appleSubject: { type: DataTypes.TEXT, allowNull: true },
    isPremade: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    disabledAt: { type: DataTypes.DATE, allowNull: true },
    timeZone: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'UTC' },
    employerId: { type: DataTypes.UUID, allowNull: true },
    staffName: { type: DataTypes.TEXT, allowNull: true },
    invitationExpiresAt: { type: DataTypes.DATE, allowNull: true },
    suspendedAt: { type: DataTypes.DATE, allowNull: true },
    removedAt: { type: DataTypes.DATE, allowNull: true },
    createdAt: DataTypes.DATE,
    updatedAt: DataTypes.DATE,
  },
  { sequelize: getSequelize(), tableName: 'users', underscored: true },
)

/** E-mail addresses are stored trimmed and lower-cased, so lookups and the unique index agree. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase()

/** What sign-in needs: never leaves the server (it carries the password hash). */
export type Credentials = Pick<
  InferAttributes<User>,
  'id' | 'email' | 'role' | 'passwordHash' | 'emailConfirmedAt' | 'isPremade' | 'disabledAt' | 'suspendedAt'
>

/**
 * When the employer of the user `alias` (a users row in the statement) was disabled: null for an owner, or for staff of
 * an owner not disabled. The one SQL for "a disabled owner's staff are disabled too", shared by the sign-in lookups
 * here, the session lookup and the invitation's.
 */
export const employerDisabledAt = (alias: string) =>
  `(select e.disabled_at from users e where e.id = ${alias}.employer_id)`

/**
 * A staff member of a disabled owner is disabled too: they stamp that owner's cards only. As an attribute, so every
 * sign-in path (password, reset, confirmation, Google, Apple) refuses them by the one check it makes already.
 */
const DISABLED_WITH_EMPLOYER = literal(`coalesce("User"."disabled_at", ${employerDisabledAt('"User"')})`)

export async function findCredentialsByEmail(email: string, transaction?: Transaction): Promise<Credentials | null> {
  return User.findOne({
    attributes: [
      'id',
      'email',
      'role',
      'passwordHash',
      'emailConfirmedAt',
      'isPremade',
      [DISABLED_WITH_EMPLOYER, 'disabledAt'],
      'suspendedAt',
    ],
    where: { email: normalizeEmail(email), removedAt: null },
    raw: true,
    transaction,
  }) as Promise<Credentials | null>
}

export async function findUserIdByEmail(email: string): Promise<string | null> {
  const row = await User.findOne({
    attributes: ['id'],
    where: { email: normalizeEmail(email), removedAt: null },
    raw: true,
  })
  return row?.id ?? null
}

/** The signed-in user as pages and JSON calls may show them (no hash, no logo bytes). */
export type PublicUser = {
  id: string
  email: string
  role: Role
  emailConfirmed: boolean
  hasLogo: boolean
  /** The profile photo's address (versioned, so a new upload is never hidden by a cache), or null for the default. */
  logoUrl: string | null
  isPremade: boolean
  /** The business's IANA time zone. */
  timeZone: string
}

export async function getPublicUser(userId: string): Promise<PublicUser | null> {
  const row = (await User.findOne({
    attributes: ['id', 'email', 'role', 'emailConfirmedAt', 'logoUpdatedAt', 'isPremade', 'disabledAt', 'timeZone'],
    where: { id: userId },
    raw: true,
  })) as Pick<
    InferAttributes<User>,
    'id' | 'email' | 'role' | 'emailConfirmedAt' | 'logoUpdatedAt' | 'isPremade' | 'disabledAt' | 'timeZone'
  > | null
  if (!row || row.disabledAt) return null
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    emailConfirmed: row.emailConfirmedAt !== null,
    hasLogo: row.logoUpdatedAt !== null,
    logoUrl: row.logoUpdatedAt ? `/images/users/${row.id}/logo?v=${row.logoUpdatedAt.getTime()}` : null,
    isPremade: row.isPremade,
    timeZone: row.timeZone,
  }
}

export async function createUser(
  input: {
    email: string
    passwordHash: string | null
    emailConfirmedAt?: Date | null
    googleSubject?: string
    appleSubject?: string
    isPremade?: boolean
    /** A zone the database knows (isTimeZoneKnownToDatabase); UTC when not given. */
    timeZone?: string
  },
  transaction?: Transaction,
): Promise<{ id: string; email: string }> {
  const user = await User.create(
    {
      email: normalizeEmail(input.email),
      passwordHash: input.passwordHash,
      emailConfirmedAt: input.emailConfirmedAt ?? null,
      googleSubject: input.googleSubject ?? null,
      appleSubject: input.appleSubject ?? null,
      isPremade: input.isPremade ?? false,
      timeZone: input.timeZone ?? 'UTC',
    },
    { transaction },
  )
  return { id: user.id, email: user.email }
}

/** The owner's time zone ('UTC' for an account that is gone: nothing of theirs is shown anyway). */
export async function getOwnerTimeZone(userId: string): Promise<string> {
  const [row] = await getSequelize().query<{ time_zone: string }>('select time_zone from users where id = :userId', {
    replacements: { userId },
    type: QueryTypes.SELECT,
  })
  return row?.time_zone ?? 'UTC'
}

/**
 * Sets the owner's time zone; false when it already was that zone (the condition is part of the update, so two
 * saves of one zone change it once). The caller checks the name with isTimeZoneKnownToDatabase first.
 */
export async function setOwnerTimeZone(userId: string, timeZone: string, transaction?: Transaction): Promise<boolean> {
  const rows = await getSequelize().query<{ id: string }>(
    'update users set time_zone = :timeZone where id = :userId and time_zone <> :timeZone returning id',
    { replacements: { userId, timeZone }, type: QueryTypes.SELECT, transaction },
  )
  return rows.length > 0
}

/**
 * Whether the database knows the zone by that exact name: the runtime's list (Intl) and the database's (its tzdata)
 * need not agree, and every day the database computes (pass_days, the trigger) uses the stored name.
 */
export async function isTimeZoneKnownToDatabase(timeZone: string, transaction?: Transaction): Promise<boolean> {
  const [row] = await getSequelize().query<{ known: boolean }>(
    'select exists(select 1 from pg_timezone_names where name = :timeZone) as known',
    { replacements: { timeZone }, type: QueryTypes.SELECT, transaction },
  )
  return row?.known === true
}

export async function setPassword(userId: string, passwordHash: string, transaction?: Transaction) {
  await User.update({ passwordHash, isPremade: false }, { where: { id: userId }, transaction })
}

export async function confirmEmail(userId: string, transaction?: Transaction): Promise<boolean> {
  const [count] = await User.update(
    { emailConfirmedAt: new Date() },
    { where: { id: userId, emailConfirmedAt: null }, transaction },
  )
  return count > 0
}

export type SocialProvider = 'google' | 'apple'
const SUBJECT_ATTRIBUTE = { google: 'googleSubject', apple: 'appleSubject' } as const

/** The account a Google or Apple subject is linked to. */
export async function findUserBySubject(
  provider: SocialProvider,
  subject: string,
  transaction?: Transaction,
): Promise<{ id: string; disabledAt: Date | null; suspendedAt: Date | null } | null> {
  return User.findOne({
    attributes: ['id', [DISABLED_WITH_EMPLOYER, 'disabledAt'], 'suspendedAt'],
    // A removed staff member's row stays for the activity; it signs nobody in.
    where: { [SUBJECT_ATTRIBUTE[provider]]: subject, removedAt: null },
    raw: true,
    transaction,
  }) as Promise<{ id: string; disabledAt: Date | null; suspendedAt: Date | null } | null>
}

/** Links a provider's subject to an account; false when the account is already linked to another subject. */
export async function linkSubject(
  userId: string,
  provider: SocialProvider,
  subject: string,
  transaction?: Transaction,
): Promise<boolean> {
  const attribute = SUBJECT_ATTRIBUTE[provider]
  const [count] = await User.update({ [attribute]: subject }, { where: { id: userId, [attribute]: null }, transaction })
  return count > 0
}

/** When the user's logo last changed (the version in its address), or null when they have none. */
export async function getUserLogoUpdatedAt(userId: string): Promise<Date | null> {
  const row = await User.findOne({ attributes: ['logoUpdatedAt'], where: { id: userId }, raw: true })
  return row?.logoUpdatedAt ?? null
}

/** The profile settings page's view of the user: no hash, no logo bytes. */
export type ProfileUser = {
  id: string
  email: string
  hasPassword: boolean
  logoUrl: string | null
  timeZone: string
}

export async function getProfileUser(userId: string): Promise<ProfileUser | null> {
  const row = (await User.findOne({
    attributes: ['id', 'email', 'passwordHash', 'logoUpdatedAt', 'disabledAt', 'timeZone'],
    where: { id: userId },
    raw: true,
  })) as Pick<
    InferAttributes<User>,
    'id' | 'email' | 'passwordHash' | 'logoUpdatedAt' | 'disabledAt' | 'timeZone'
  > | null
  if (!row || row.disabledAt) return null
  return {
    id: row.id,
    email: row.email,
    hasPassword: row.passwordHash !== null,
    logoUrl: row.logoUpdatedAt ? `/images/users/${row.id}/logo?v=${row.logoUpdatedAt.getTime()}` : null,
    timeZone: row.timeZone,
  }
}

/** What a password check needs, by id (the profile's e-mail and password changes): never leaves the server. */
export async function findCredentialsById(
  userId: string,
): Promise<Pick<Credentials, 'id' | 'email' | 'passwordHash'> | null> {
  return User.findOne({
    attributes: ['id', 'email', 'passwordHash'],
    where: { id: userId, disabledAt: null },
    raw: true,
  }) as Promise<Pick<Credentials, 'id' | 'email' | 'passwordHash'> | null>
}

/** Whether another account uses the address. */
export async function isEmailTaken(email: string, exceptUserId?: string, transaction?: Transaction): Promise<boolean> {
  const row = await User.findOne({
    attributes: ['id'],
    where: { email: normalizeEmail(email), removedAt: null },
    raw: true,
    transaction,
  })
  return row !== null && row.id !== exceptUserId
}

/** Moves the account to a new, proven address (from an e-mail change link). */
export async function changeEmail(userId: string, email: string, transaction?: Transaction) {
  await User.update(
    { email: normalizeEmail(email), emailConfirmedAt: new Date() },
    { where: { id: userId }, transaction },
  )
}

export async function getUserEmail(userId: string, transaction?: Transaction): Promise<string | null> {
  const row = await User.findOne({ attributes: ['email'], where: { id: userId }, raw: true, transaction })
  return row?.email ?? null
}

export type UserLogo = { data: Buffer; contentType: string; updatedAt: Date }

export async function getUserLogo(userId: string): Promise<UserLogo | null> {
  const row = await User.findOne({
    attributes: ['logo', 'logoContentType', 'logoUpdatedAt'],
    where: { id: userId },
    raw: true,
  })
  if (!row?.logo || !row.logoContentType || !row.logoUpdatedAt) return null
  return { data: row.logo, contentType: row.logoContentType, updatedAt: row.logoUpdatedAt }
}

export async function setUserLogo(userId: string, logo: { data: Buffer; contentType: string }) {
  await User.update(
    { logo: logo.data, logoContentType: logo.contentType, logoUpdatedAt: new Date() },
    { where: { id: userId } },
  )
}

export async function removeUserLogo(userId: string) {
  await User.update({ logo: null, logoContentType: null, logoUpdatedAt: null }, { where: { id: userId } })
}

/** Deletes the account; the database removes its cards, passes, subscription, sessions and tokens with it. */
export async function deleteUser(userId: string): Promise<boolean> {
  return (await User.destroy({ where: { id: userId } })) > 0
}

/** The account's role, or null for an unknown id (admin.server.ts checks it on every admin request). */
export async function getUserRole(userId: string): Promise<Role | null> {
  const row = await User.findOne({ attributes: ['role'], where: { id: userId }, raw: true })
  return row?.role ?? null
}

/**
 * Gives the account with this e-mail address the role; found is false when there is none, changed false when it
 * already had the role. One statement, so the answer is about the row it updated.
 */
export async function setRoleByEmail(email: string, role: Role): Promise<{ found: boolean; changed: boolean }> {
  const rows = await getSequelize().query<{ changed: boolean }>(
    `with target as (select id, role from users
                     where email = lower(trim(:email)) and removed_at is null and role <> 'staff')
     update users u set role = :role from target where u.id = target.id
     returning target.role <> :role as changed`,
    { replacements: { email, role }, type: QueryTypes.SELECT },
  )
  return { found: rows.length > 0, changed: rows[0]?.changed ?? false }
}

/**
 * Sets (a date) or clears (null) disabled_at; false when it already was so, because the condition is part of the
 * update: two admins clicking at once change it once.
 */
export async function setUserDisabledAt(
  userId: string,
  disabledAt: Date | null,
  transaction?: Transaction,
): Promise<boolean> {
  const [rows] = (await getSequelize().query(
    `update users set disabled_at = :disabledAt
     where id = :userId and (disabled_at is null) = :disable returning id`,
    { replacements: { userId, disabledAt, disable: disabledAt !== null }, transaction },
  )) as [unknown[], unknown]
  return rows.length > 0
}

/** Whether the account's e-mail address is confirmed (false for an unknown id). */
export async function hasConfirmedEmail(userId: string): Promise<boolean> {
  const row = await User.findOne({
    attributes: ['id'],
    where: { id: userId, emailConfirmedAt: { [Op.ne]: null } },
    raw: true,
  })
  return row !== null
}

/** How many accounts exist (the demo account is made only in an empty database). */
export async function countUsers(transaction?: Transaction): Promise<number> {
  return User.count({ transaction })
}

/**
 * A confirmed account with a password, unless the address is taken: then null, without an error, because the
 * conflict is expected (several processes starting on one empty database each try once; the first insert wins,
 * the others wait for it and find the address taken).
 */
export async function createConfirmedUserUnlessTaken(
  { email, passwordHash }: { email: string; passwordHash: string },
  transaction?: Transaction,
): Promise<{ id: string } | null> {
  const [user] = await getSequelize().query<{ id: string }>(
    `insert into users (email, password_hash, email_confirmed_at) values (:email, :passwordHash, now())
     on conflict do nothing returning id`,
    { type: QueryTypes.SELECT, replacements: { email: normalizeEmail(email), passwordHash }, transaction },
  )
  return user ?? null
}
