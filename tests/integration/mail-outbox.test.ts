import net from 'node:net'
import { QueryTypes } from 'sequelize'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { getSequelize } from '#app/server/db.server.ts'
import { resetEnvForTests } from '#app/server/env.server.ts'
import { deliverPendingMail, queueMail } from '#app/server/mail.server.ts'
import { startSmtpPeer } from '#tests/support/smtp-peer.ts'

// A failing SMTP server never loses mail: it stays in the outbox and goes out once the server answers again.

let port: number
beforeAll(async () => {
  const probe = net.createServer().listen(0, '127.0.0.1')
  await new Promise((resolve) => probe.once('listening', resolve))
  port = (probe.address() as net.AddressInfo).port
  await new Promise((resolve) => probe.close(resolve)) // nothing listens there now: connections are refused
  process.env.SMTP_URL = `smtp://127.0.0.1:${port}`
  resetEnvForTests()
})

afterAll(() => {
  delete process.env.SMTP_URL
  resetEnvForTests()
})

type Row = { status: string; attempts: number; last_error: string | null; due: boolean }
const mailRow = async (id: string) =>
  (
    await getSequelize().query<Row>(
      'select status, attempts, last_error, next_attempt_at <= now() as due from mails where id = :id',
      { replacements: { id }, type: QueryTypes.SELECT },
    )
  )[0]!

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const value = await read()
    if (done(value)) return value
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('timed out')
}

test('mail to a refusing SMTP server is kept, retried later, and sent once the server answers', async () => {
  const { id } = await queueMail({
    to: 'owner@example.com',
    subject: 'Hello',
    text: 'Plain part',
    html: '<p>HTML part</p>',
  })
  const failed = await waitFor(
    () => mailRow(id),
    (row) => row.attempts === 1 && row.last_error !== null,
  )
  expect(failed).toMatchObject({ status: 'pending', due: false }) // backed off, not dropped

  const peer = await startSmtpPeer({ port })
  try {
    // Time passes: the retry is due. Two workers (say, two processes) run at once; the message goes out once.
    await getSequelize().query(`update mails set next_attempt_at = now() where id = :id`, { replacements: { id } })
    const sent = (await Promise.all([deliverPendingMail(), deliverPendingMail()])).reduce((a, b) => a + b, 0)
    expect(sent).toBe(1)
    expect(await mailRow(id)).toMatchObject({ status: 'sent', attempts: 2, last_error: null })
    expect(peer.messagesTo('owner@example.com')).toHaveLength(1)
    const [mail] = peer.messagesTo('owner@example.com')
    expect(mail!.subject).toBe('Hello')
    expect(mail!.text.trim()).toBe('Plain part')
    expect(mail!.html).toContain('HTML part')
  } finally {
    await peer.close()
  }
})
