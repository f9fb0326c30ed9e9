import { formatDate } from '#app/utils/plan-format.ts'

export type WalletStatusView = {
  appleWallet: {
    on: boolean
    missing: string[]
    certExpiresAt: string | null
    problem: string | null
    urlNotice: { level: 'warning' | 'note'; message: string } | null
  }
  googleWallet: { on: boolean; missing: string[]; serviceAccountEmail: string | null; problem: string | null }
}

/**
 * /admin's wallet settings: what is missing to turn Apple Wallet or Google Wallet on, until when Apple's certificate
 * signs passes, which service account talks to Google, and what is wrong with a setting.
 * Setting names are for the admin only; owners read "not available yet".
 */
export function WalletStatus({ status }: { status: WalletStatusView }) {
  const apple = status.appleWallet
  const google = status.googleWallet
  return (
    <section aria-labelledby="admin-wallets-title" className="panel admin-wallets">
      <h2 id="admin-wallets-title">Wallets</h2>
      <p>
        <strong>Apple Wallet: </strong>
        {apple.on ? 'on' : 'off'}
        {apple.on && apple.certExpiresAt ? ` · pass certificate valid until ${formatDate(apple.certExpiresAt)}` : null}
      </p>
      {apple.problem ? <p className="field-error">{apple.problem}</p> : null}
      {apple.urlNotice ? (
        <p className={apple.urlNotice.level === 'warning' ? 'field-error' : 'field-hint'}>{apple.urlNotice.message}</p>
      ) : null}
      <MissingSettings on={apple.on} names={apple.missing} />
      <p>
        <strong>Google Wallet: </strong>
        {google.on ? 'on' : 'off'}
        {google.on && google.serviceAccountEmail ? ` · service account ${google.serviceAccountEmail}` : null}
      </p>
      {google.problem ? <p className="field-error">{google.problem}</p> : null}
      <MissingSettings on={google.on} names={google.missing} />
    </section>
  )
}

function MissingSettings({ on, names }: { on: boolean; names: string[] }) {
  if (!names.length) return null
  return (
    <p className="field-hint">
      {on ? 'Missing settings: ' : 'To turn it on, set: '}
      {names.map((name, index) => (
        <span key={name}>
          {index ? ', ' : null}
          <code>{name}</code>
        </span>
      ))}
    </p>
  )
}
