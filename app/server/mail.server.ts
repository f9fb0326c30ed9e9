import { insertMail, leaseDueMail, markMailFailed, markMailSent } from '#models/mail-outbox.server.ts'
import { getEnv } from './env.server.ts'
import { loadOnFirstUse } from './load-on-first-use.server.ts'
import { logger } from './logger.server.ts'
import type { Transporter } from 'nodemailer'
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js'
import type { Transaction } from 'sequelize'

/**
 * Outgoing mail is written to the `mails` table first and sent afterwards, so a failing SMTP server never loses
 * a message: failed sends are retried with backoff by the worker in server.ts. Without SMTP_URL, mail is only
 * stored (status 'stored') and listed at /dev/mailbox outside production.
 */
export type OutgoingMail = { to: string; subject: string; text: string; html?: string }

const MAX_ATTEMPTS = 10
const LEASE_SECONDS = 120

// nodemailer is loaded by the first mail sent: without SMTP_URL (mail only stored) it is never needed.
const getTransporter = loadOnFirstUse(async (): Promise<Transporter> => {
  const { default: nodemailer } = await import('nodemailer')
  return nodemailer.createTransport({
    url: getEnv().SMTP_URL!,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  } as SMTPTransport.Options)
})

export async function queueMail(
  mail: OutgoingMail,
  { transaction }: { transaction?: Transaction } = {},
): Promise<{ id: string }> {
  const env = getEnv()
  const row = await insertMail(
    {
      to: mail.to,
      from: env.MAIL_FROM,
      subject: mail.subject,
      text: mail.text,
      html: mail.html ?? null,
      status: env.SMTP_URL ? 'pending' : 'stored',
    },
    transaction,
  )
  // Sent in the background: the request that caused the mail does not wait for the SMTP server. Queued in a
  // transaction, the mail is written with the change it tells of (both or neither), and sent once that commits.
  const deliver = () => void deliverPendingMail().catch((error) => logger.error({ err: error }, 'mail delivery failed'))
  if (env.SMTP_URL) {
    if (transaction) transaction.afterCommit(deliver)
    else deliver()
  }
  return { id: row.id }
}

/** Sends the mail that is due; each row is leased first, so two processes never send the same message twice. */
export async function deliverPendingMail(limit = 20): Promise<number> {
  if (!getEnv().SMTP_URL) return 0
  const rows = await leaseDueMail({ leaseSeconds: LEASE_SECONDS, limit })
  for (const row of rows) {
    try {
      await (
        await getTransporter()
      ).sendMail({
        from: row.from,
        to: row.to,
        subject: row.subject,
        text: row.text,
        html: row.html ?? undefined,
      })
      await markMailSent(row.id)
    } catch (error) {
      const giveUp = row.attempts >= MAX_ATTEMPTS
      // 30 s, 1 min, 2 min … capped at one hour between attempts.
      const backoff = Math.min(3600, 30 * 2 ** (row.attempts - 1))
      await markMailFailed({
        id: row.id,
        status: giveUp ? 'failed' : 'pending',
        error: String((error as Error).message ?? error).slice(0, 500),
        backoffSeconds: backoff,
      })
      logger.warn({ mailId: row.id, attempts: row.attempts, err: error }, 'mail not sent; will retry')
    }
  }
  return rows.length
}

/** Retries due mail every `intervalMs` until stopped (server.ts starts it; shutdown stops it). */
export function startMailWorker(intervalMs = 15_000): () => void {
  let running = false
  const timer = setInterval(() => {
    if (running) return
    running = true
    deliverPendingMail()
      .catch((error) => logger.error({ err: error }, 'mail worker failed'))
      .finally(() => {
        running = false
      })
  }, intervalMs)
  timer.unref()
  return () => clearInterval(timer)
}
