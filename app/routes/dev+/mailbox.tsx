import { type LoaderFunctionArgs } from '@remix-run/node'
import { useLoaderData, type MetaFunction } from '@remix-run/react'
import { getEnv } from '#app/server/env.server.ts'
import { notFound } from '#app/server/http-errors.server.ts'
import { servesDevelopmentTools } from '#app/server/loopback.server.ts'
import { clientAddress } from '#app/services/auth/session.server.ts'
import { listStoredMail } from '#models/mail-outbox.server.ts'

/**
 * Mail the app wrote, newest first, so links can be clicked without an SMTP server. Never in production, and only
 * for this computer: the page lists every reset link.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const isProduction = context.isProduction || getEnv().isProduction
  if (!servesDevelopmentTools({ isProduction, clientAddress: clientAddress(request) })) throw notFound()
  const mails = await listStoredMail()
  return {
    mails: mails.map((mail) => ({
      id: mail.id,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      status: mail.status,
      createdAt: new Date(mail.createdAt).toISOString(),
    })),
  }
}

export default function Mailbox() {
  const { mails } = useLoaderData<typeof loader>()
  return (
    <main id="content" className="container simple-page">
      <h1>Mailbox</h1>
      <p className="lead">E-mail Stampwise has written, newest first. This page exists only outside production.</p>
      {mails.length ? (
        <ol className="mailbox">
          {mails.map((mail) => (
            <li key={mail.id} className="panel">
              <article aria-label={mail.subject}>
                <h2>{mail.subject}</h2>
                <p className="mailbox__meta">
                  To <strong>{mail.to}</strong> ·{' '}
                  <time dateTime={mail.createdAt}>{mail.createdAt.replace('T', ' ').slice(0, 19)} UTC</time> ·{' '}
                  {mail.status}
                </p>
                <pre className="mailbox__body">
                  <LinkedText text={mail.text} />
                </pre>
              </article>
            </li>
          ))}
        </ol>
      ) : (
        <p>No mail yet. Sign up or ask for a password reset, and the message will appear here.</p>
      )}
    </main>
  )
}

/** Plain text with its http(s) addresses turned into links (React escapes everything else). */
function LinkedText({ text }: { text: string }) {
  const parts = text.split(/(https?:\/\/[^\s<>"]+)/g)
  return (
    <>
      {parts.map((part, index) =>
        index % 2 === 1 ? (
          <a key={index} href={part}>
            {part}
          </a>
        ) : (
          part
        ),
      )}
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Mailbox — Stampwise' }]
