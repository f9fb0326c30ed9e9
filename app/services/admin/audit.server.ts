import { type Transaction } from 'sequelize'
import { insertAuditEntry } from '#models/audit.server.ts'

export { listAuditForUser, type AuditEntry } from '#models/audit.server.ts'

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
  await insertAuditEntry(
    {
      actorId: entry.actorId,
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId,
      before: entry.before === undefined ? null : JSON.stringify(entry.before),
      after: entry.after === undefined ? null : JSON.stringify(entry.after),
    },
    transaction,
  )
}
