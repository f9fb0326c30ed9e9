import { type AddressInfo } from 'node:net'
import { simpleParser, type AddressObject } from 'mailparser'
import { SMTPServer } from 'smtp-server'

/**
 * A real SMTP server on loopback for tests: the app sends to it over SMTP_URL exactly as it would to a provider,
 * and the test reads what arrived. Plain SMTP (no STARTTLS), no authentication.
 */
export type ReceivedMail = {
  from: string
  to: string[]
  subject: string
  text: string
  html: string | null
  receivedAt: string
}

export async function startSmtpPeer({ port = 0, host = '127.0.0.1' }: { port?: number; host?: string } = {}) {
  const messages: ReceivedMail[] = []
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          messages.push({
            from: addressText(parsed.from),
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : null,
            receivedAt: new Date().toISOString(),
          })
          callback()
        },
        (error: Error) => callback(error),
      )
    },
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve())
  })
  const address = server.server.address() as AddressInfo
  return {
    port: address.port,
    url: `smtp://${host}:${address.port}`,
    messages,
    /** Messages to one address, oldest first. */
    messagesTo: (to: string) => messages.filter((mail) => mail.to.includes(to.toLowerCase())),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

function addressText(address: AddressObject | AddressObject[] | undefined): string {
  if (!address) return ''
  return (Array.isArray(address) ? address : [address]).map((item) => item.text).join(', ')
}

/** The ports of the peer Playwright starts (tests/support/smtp-peer-server.ts): SMTP, and HTTP to read the mail. */
export function e2eMailPorts() {
  const smtp = Number(process.env.E2E_SMTP_PORT ?? 2526)
  return { smtp, http: Number(process.env.E2E_SMTP_HTTP_PORT ?? smtp + 1) }
}
