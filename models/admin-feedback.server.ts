import { QueryTypes, type Transaction } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { type FeedbackSource } from './feedback-message.server.ts'

/** /admin/feedback's reads and writes of feedback_messages (from /feedback, /contacts and /account/contact-us). */
export const FEEDBACK_PER_PAGE = 50

export type FeedbackFilter = 'open' | 'handled' | 'all'

export type AdminFeedbackRow = {
  id: string
  source: FeedbackSource
  userId: string | null
  name: string | null
  email: string | null
  subject: string | null
  message: string
  handledAt: Date | null
  handledByEmail: string | null
  createdAt: Date
}

const CONDITION: Record<FeedbackFilter, string> = {
  open: 'where f.handled_at is null',
  handled: 'where f.handled_at is not null',
  all: '',
}

/** One page of messages, newest first, and how many match in all. */
export async function listFeedback({ filter, page }: { filter: FeedbackFilter; page: number }) {
  const rows = await getSequelize().query<AdminFeedbackRow & { total: string }>(
    `select f.id, f.source, f.user_id as "userId", f.name, f.email, f.subject, f.message, f.handled_at as "handledAt",
            handler.email as "handledByEmail", f.created_at as "createdAt", count(*) over () as total
     from feedback_messages f left join users handler on handler.id = f.handled_by
     ${CONDITION[filter]}
     order by f.created_at desc, f.id desc limit :limit offset :offset`,
    {
      replacements: { limit: FEEDBACK_PER_PAGE, offset: (page - 1) * FEEDBACK_PER_PAGE },
      type: QueryTypes.SELECT,
    },
  )
  return {
    total: rows.length ? Number(rows[0]!.total) : 0,
    items: rows.map(({ total: _total, ...row }) => row),
  }
}

export type FeedbackHandling = { handledAt: Date | null; handledBy: string | null }

/** The message's handling, locked for the change that follows; null when there is no such message. */
export async function lockFeedbackHandling(id: string, transaction: Transaction): Promise<FeedbackHandling | null> {
  const [row] = await getSequelize().query<FeedbackHandling>(
    `select handled_at as "handledAt", handled_by as "handledBy" from feedback_messages where id = :id for update`,
    { replacements: { id }, type: QueryTypes.SELECT, transaction },
  )
  return row ?? null
}

export async function setFeedbackHandling(id: string, handling: FeedbackHandling, transaction: Transaction) {
  await getSequelize().query(
    `update feedback_messages set handled_at = :handledAt, handled_by = :handledBy where id = :id`,
    {
      replacements: { id, ...handling },
      transaction,
    },
  )
}
