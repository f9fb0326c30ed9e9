import { Link } from '@remix-run/react'

/** The plan's card limit reached: its message and the way to a bigger plan. */
export function CardLimitNotice({
  message,
  ended,
  inline = false,
}: {
  message: string
  ended: boolean
  inline?: boolean
}) {
  const links = (
    <p>
      <Link to="/account/tariffs" className="button">
        View plans
      </Link>{' '}
      <Link to={ended ? '/account/limits_trial' : '/account/limits'}>What your plan includes</Link>
    </p>
  )
  if (inline) {
    return (
      <div className="form-message form-message--error" role="alert">
        <p>{message}</p>
        {links}
      </div>
    )
  }
  return (
    <>
      <h1>You have reached your plan's card limit</h1>
      <p className="lead" role="alert">
        {message}
      </p>
      {links}
    </>
  )
}
