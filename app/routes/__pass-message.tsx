/** The latest message the holder was sent, as it was sent (docs/decisions/050-live-pass-page.md). */
export type PassMessageView = { title: string; body: string; link: string | null; sent: string }

export function LatestMessage({ message }: { message: PassMessageView | null }) {
  if (!message) return null
  return (
    <section className="pass-page__message" aria-labelledby="pass-message-title">
      <h2 id="pass-message-title">Latest message</h2>
      <p className="pass-page__message-title">{message.title}</p>
      <p>{message.body}</p>
      {message.link ? (
        // The owner's link, checked as http(s) when the message was written; it leaves Stampwise.
        <a href={message.link} rel="noopener noreferrer nofollow">
          Open the link
        </a>
      ) : null}
      <p className="pass-page__message-sent">{`Sent ${message.sent}`}</p>
    </section>
  )
}
