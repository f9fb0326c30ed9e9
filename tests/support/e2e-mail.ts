import { e2eMailPorts, type ReceivedMail } from './smtp-peer.ts'
import { expect, type APIRequestContext } from './test.ts'

/** The SMTP peer Playwright starts, read over its HTTP side (tests/support/smtp-peer-server.ts). */
const MAIL_URL = `http://127.0.0.1:${e2eMailPorts().http}`

/** The newest mail to `to` whose subject contains `subject`, waiting for the peer to receive `count` of them. */
export async function readMail(
  request: APIRequestContext,
  to: string,
  subject: string,
  count = 1,
): Promise<ReceivedMail> {
  let found: ReceivedMail[] = []
  await expect
    .poll(
      async () => {
        const response = await request.get(`${MAIL_URL}/messages?${new URLSearchParams({ to })}`)
        found = ((await response.json()) as ReceivedMail[]).filter((mail) => mail.subject.includes(subject))
        return found.length
      },
      { message: `${count} mail(s) "${subject}" to ${to}`, timeout: 15_000 },
    )
    .toBeGreaterThanOrEqual(count)
  return found.at(-1)!
}
