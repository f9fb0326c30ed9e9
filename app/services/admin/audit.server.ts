import { QueryTypes, type Transaction } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'

/**
 * The audit log of admin actions (issue #7): who did what to which record, when, and the record before and after.
 * Written in the action's own transaction, so a change is never stored without its entry (nor the other way).
 */
export type AuditEntryInput = {
  actorId: string | null
  action: string
  targetType: 'user' | 'subscription' | 'card' | 'feedback' | 'invoice'
  targetId: string
  before?: unknown
  after?: unknown
}

export async function writeAudit(entry: AuditEntryInput, transaction?: Transaction) {
  await getSequelize().query(
    `insert into audit_log (actor_id, action, target_type, target_id, before, after)
     values (:actorId, :action, :targetType, :targetId, :before::jsonb, :after::jsonb)`,
    {
      replacements: {
        actorId: entry.actorId,
        action: entry.action,
        targetType: entry.targetType,
        targetId: entry.targetId,
        before: entry.before === undefined ? null : JSON.stringify(entry.before),
        after: entry.after === undefined ? null : JSON.stringify(entry.after),
      },
      transaction,
    },
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

/** Entries about one user: their account and subscription, and their cards; newest first. */
export async function listAuditForUser(userId: string, limit = 50): Promise<AuditEntry[]> {
  return getSequelize().query<AuditEntry>(
    `select a.id::text, actor.email as "actorEmail", a.action, a.target_type as "targetType", a.target_id as "targetId",
            a.before, a.after, a.created_at as "createdAt"
     from audit_log a left join users actor on actor.id = a.actor_id
     where (a.target_type = 'user' and a.target_id = :userId)
        or (a.target_type = 'subscription' and a.target_id in (select id::text from subscriptions where user_id = :userId))
        or (a.target_type = 'card' and a.target_id in (select id::text from cards where user_id = :userId))
        or (a.target_type = 'invoice' and a.target_id in (select i.id::text from invoices i join subscriptions s on s.id = i.subscription_id where s.user_id = :userId))
     order by a.created_at desc, a.id desc limit :limit`,
    { replacements: { userId, limit }, type: QueryTypes.SELECT },
  )
}
