import { QueryTypes, type Transaction } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'

/**
 * The audit log of admin actions (issue #7): who did what to which record, when, and the record before and after
 * (stored as JSON, null when absent). app/services/admin/audit.server.ts decides what an entry says.
 */
export type AuditRow = {
  actorId: string | null
  action: string
  targetType: string
  targetId: string
  before: string | null
  after: string | null
}

/** Written in the caller's transaction, so a change is never stored without its entry (nor the other way). */
export async function insertAuditEntry(entry: AuditRow, transaction?: Transaction) {
  await getSequelize().query(
    `insert into audit_log (actor_id, action, target_type, target_id, before, after)
     values (:actorId, :action, :targetType, :targetId, :before::jsonb, :after::jsonb)`,
    { replacements: entry, transaction },
  )
}

export type AuditEntry = {
  id: string
  actorEmail: string | null
  action: string
  targetType: string
  targetId: string
  before: unknown
  after: unknown
  createdAt: Date
}

/** Entries about one user: their account and subscription, their invoices and their cards; newest first. */
export async function listAuditForUser(userId: string, limit = 50): Promise<AuditEntry[]> {
  return getSequelize().query<AuditEntry>(
    `select a.id::text, actor.email as "actorEmail", a.action, a.target_type as "targetType", a.target_id as "targetId",
            a.before, a.after, a.created_at as "createdAt"
     from audit_log a left join users actor on actor.id = a.actor_id
     where (a.target_type = 'user' and a.target_id = :userId)
        or (a.target_type = 'subscription' and a.target_id in (select id::text from subscriptions
          where user_id = :userId))
        or (a.target_type = 'card' and a.target_id in (select id::text from cards where user_id = :userId))
        or (a.target_type = 'invoice' and a.target_id in (select i.id::text from invoices i
          join subscriptions s on s.id = i.subscription_id where s.user_id = :userId))
     order by a.created_at desc, a.id desc limit :limit`,
    { replacements: { userId, limit }, type: QueryTypes.SELECT },
  )
}
