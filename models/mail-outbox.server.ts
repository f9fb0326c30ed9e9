import { QueryTypes, type Transaction } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'

/**
 * The `mails` table: outgoing mail is stored first and sent afterwards (app/server/mail.server.ts holds the SMTP
 * transport and the retry rules), so a failing SMTP server never loses a message.
 */
export type MailToStore = {
  to: string
  from: string
  subject: string
  text: string
  html: string | null
  status: 'pending' | 'stored'
}

export async function insertMail(mail: MailToStore, transaction?: Transaction): Promise<{ id: string }> {
  const [row] = await getSequelize().query<{ id: string }>(
    `insert into mails (to_address, from_address, subject, text_body, html_body, status, next_attempt_at)
     values (:to, :from, :subject, :text, :html, :status, now()) returning id`,
    { replacements: mail, type: QueryTypes.SELECT, transaction },
  )
  return { id: row!.id }
}

export type LeasedMail = {
  id: string
  to: string
  from: string
  subject: string
  text: string
  html: string | null
  attempts: number
}

/**
 * Takes up to `limit` due pending mails for `leaseSeconds` and counts the attempt: `skip locked` and the moved
 * next_attempt_at keep another process from sending the same message meanwhile.
 */
export async function leaseDueMail({
  leaseSeconds,
  limit,
}: {
  leaseSeconds: number
  limit: number
}): Promise<LeasedMail[]> {
  return getSequelize().query<LeasedMail>(
    `update mails set next_attempt_at = now() + make_interval(secs => :lease), attempts = attempts + 1
     where id in (select id from mails where status = 'pending' and next_attempt_at <= now()
                  order by next_attempt_at limit :limit for update skip locked)
     returning id, to_address as "to", from_address as "from", subject, text_body as text, html_body as html, attempts`,
    { replacements: { lease: leaseSeconds, limit }, type: QueryTypes.SELECT },
  )
}

export async function markMailSent(id: string) {
  await getSequelize().query(`update mails set status = 'sent', sent_at = now(), last_error = null where id = :id`, {
    replacements: { id },
  })
}

/** A failed send: tried again after `backoffSeconds` while `status` stays pending, or given up (failed). */
export async function markMailFailed(failure: {
  id: string
  status: 'pending' | 'failed'
  error: string
  backoffSeconds: number
}) {
  const { id, status, error, backoffSeconds } = failure
  await getSequelize().query(
    `update mails set status = :status, last_error = :error, next_attempt_at = now() + make_interval(secs => :backoff)
     where id = :id`,
    { replacements: { id, status, error, backoff: backoffSeconds } },
  )
}

export type StoredMail = {
  id: string
  to: string
  subject: string
  text: string
  html: string | null
  status: string
  createdAt: Date
}

/** The newest stored mail, for /dev/mailbox (never in production). */
export async function listStoredMail(limit = 50): Promise<StoredMail[]> {
  return getSequelize().query<StoredMail>(
    `select id, to_address as "to", subject, text_body as text, html_body as html, status, created_at as "createdAt"
     from mails order by created_at desc limit :limit`,
    { replacements: { limit }, type: QueryTypes.SELECT },
  )
}
