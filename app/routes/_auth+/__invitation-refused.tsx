import { Link } from '@remix-run/react'

/** An invitation link that cannot be used (unknown, expired, used, withdrawn): why, and the way on. */
export function InvitationRefused({ message }: { message: string | null }) {
  return (
    <>
      <h1>This invitation does not work</h1>
      <p role="alert" className="form-message form-message--error">
        {message}
      </p>
      <Link to="/login" className="button button--block">
        Go to login
      </Link>
    </>
  )
}
