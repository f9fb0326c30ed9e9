import {
  DataTypes,
  Model,
  QueryTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Transaction,
} from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { type NoticeKind, type NoticeSummary, type NoticeView } from '#app/types/notices.ts'
import { isUuid } from '#app/utils/uuid.ts'

export type { NoticeKind, NoticeSummary, NoticeView }

/** An in-app notice for an owner: the header's bell lists them. */
export class Notice extends Model<InferAttributes<Notice>, InferCreationAttributes<Notice>> {
  declare id: CreationOptional<string>
  declare userId: string
  declare kind: NoticeKind
  declare message: string
  declare link: CreationOptional<string | null>
  declare dedupeKey: string
  declare readAt: CreationOptional<Date | null>
  declare createdAt: CreationOptional<Date>
}

Notice.init(
  {
    id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
    userId: { type: DataTypes.UUID, allowNull: false },
    kind: { type: DataTypes.TEXT, allowNull: false },
    message: { type: DataTypes.TEXT, allowNull: false },
    link: { type: DataTypes.TEXT, allowNull: true },
    dedupeKey: { type: DataTypes.TEXT, allowNull: false },
    readAt: { type: DataTypes.DATE, allowNull: true },
    createdAt: DataTypes.DATE,
  },
  { sequelize: getSequelize(), tableName: 'notices', underscored: true, updatedAt: false },
)

/**
 * Raises a notice once per subject: a second call with the same dedupe key (the daily job running again, a retried
 * request) changes nothing. Returns whether a notice was created.
 */
export async function raiseNotice(
  input: { userId: string; kind: NoticeKind; message: string; link?: string | null; dedupeKey: string },
  transaction?: Transaction,
): Promise<boolean> {
  const [rows] = (await getSequelize().query(
    `insert into notices (user_id, kind, message, link, dedupe_key) values (:userId, :kind, :message, :link, :dedupeKey)
     on conflict (user_id, dedupe_key) do nothing returning id`,
    { replacements: { ...input, link: input.link ?? null }, transaction },
  )) as [unknown[], unknown]
  return rows.length > 0
}

/** Raises many notices at once, each once per subject (see raiseNotice); returns how many were new. */
export async function raiseNotices(
  notices: { userId: string; kind: NoticeKind; message: string; link: string | null; dedupeKey: string }[],
): Promise<number> {
  if (notices.length === 0) return 0
  const [rows] = (await getSequelize().query(
    `insert into notices (user_id, kind, message, link, dedupe_key)
     select * from unnest(array[:userIds]::uuid[], array[:kinds]::text[], array[:messages]::text[],
                          array[:links]::text[], array[:dedupeKeys]::text[])
     on conflict (user_id, dedupe_key) do nothing returning id`,
    {
      replacements: {
        userIds: notices.map((notice) => notice.userId),
        kinds: notices.map((notice) => notice.kind),
        messages: notices.map((notice) => notice.message),
        links: notices.map((notice) => notice.link),
        dedupeKeys: notices.map((notice) => notice.dedupeKey),
      },
    },
  )) as [unknown[], unknown]
  return rows.length
}

export const UNREAD_COUNT_CAP = 100

export const NOTICES_PER_PAGE = 20
const SUMMARY_SIZE = 5

type NoticeRow = { id: string; kind: NoticeKind; message: string; link: string | null; created_at: Date; read: boolean }
const NOTICE_COLUMNS = 'n.id, n.kind, n.message, n.link, n.created_at, n.read_at is not null as read'

function toView(row: NoticeRow): NoticeView {
  const { id, kind, message, link, read } = row
  return { id, kind, message, link, read, createdAt: new Date(row.created_at).toISOString() }
}

function selectRows<Row extends object>(query: string, replacements: Record<string, unknown>) {
  return getSequelize().query<Row>(query, { replacements, type: QueryTypes.SELECT })
}

/**
 * The bell on every /account page: the five newest notices and the unread count (capped), in one query on the two
 * indexes (user_id, created_at desc) and (user_id) where read_at is null. No notice at all means no row, 0 unread.
 */
export async function getNoticeSummary(userId: string): Promise<NoticeSummary> {
  const rows = await selectRows<NoticeRow & { unread_count: number }>(
    `select ${NOTICE_COLUMNS},
       (select count(*)::int from (select 1 from notices u where u.user_id = :userId and u.read_at is null
          limit ${UNREAD_COUNT_CAP}) unread) as unread_count
     from notices n where n.user_id = :userId
     order by n.created_at desc, n.id desc limit ${SUMMARY_SIZE}`,
    { userId },
  )
  return { unreadCount: rows[0]?.unread_count ?? 0, latest: rows.map(toView) }
}

/** One page of the owner's notices, newest first; a page past the end shows the last one. */
export async function listNotices(userId: string, { page = 1 }: { page?: number } = {}) {
  const [counts] = await selectRows<{ total: number; unread: number }>(
    `select count(*)::int as total, (count(*) filter (where read_at is null))::int as unread
     from notices where user_id = :userId`,
    { userId },
  )
  const total = counts?.total ?? 0
  const pageCount = Math.max(1, Math.ceil(total / NOTICES_PER_PAGE))
  const current = Math.min(Math.max(1, Math.floor(Number.isFinite(page) ? page : 1)), pageCount)
  const rows = total
    ? await selectRows<NoticeRow>(
        `select ${NOTICE_COLUMNS} from notices n where n.user_id = :userId
         order by n.created_at desc, n.id desc limit ${NOTICES_PER_PAGE} offset :offset`,
        { userId, offset: (current - 1) * NOTICES_PER_PAGE },
      )
    : []
  return { notices: rows.map(toView), page: current, pageCount, total, unreadCount: counts?.unread ?? 0 }
}

/** Marks one of the owner's notices read; false when the owner has no such notice (another owner's id included). */
export async function markNoticeRead(userId: string, noticeId: string): Promise<boolean> {
  if (!isUuid(noticeId)) return false
  const rows = await selectRows<{ id: string }>(
    `update notices set read_at = coalesce(read_at, now()) where id = :noticeId and user_id = :userId returning id`,
    { userId, noticeId },
  )
  return rows.length > 0
}

/** Marks every unread notice of the owner read; answers how many changed. */
export async function markAllNoticesRead(userId: string): Promise<number> {
  const rows = await selectRows<{ id: string }>(
    `update notices set read_at = now() where user_id = :userId and read_at is null returning id`,
    { userId },
  )
  return rows.length
}
