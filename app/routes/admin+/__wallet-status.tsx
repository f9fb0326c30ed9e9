import { formatDate } from '#app/utils/plan-format.ts'

export type WalletStatusView = {
  appleWallet: { on: boolean; missing: string[]; certExpiresAt: string | null; problem: string | null }
}

/**
 * /admin's wallet settings: what is missing to turn Apple Wallet on, or until when its certificate signs passes.
 * Setting names are for the admin only; owners read "not available yet".
 */
export function WalletStatus({ status }: { status: WalletStatusView }) {
  const apple = status.appleWallet
  return (
    <section aria-labelledby="admin-wallets-title" className="panel admin-wallets">
      <h2 id="admin-wallets-title">Wallets</h2>
      <p>
        <strong>Apple Wallet: </strong>
        {apple.on ? 'on' : 'off'}
        {apple.on && apple.certExpiresAt ? ` · pass certificate valid until ${formatDate(apple.certExpiresAt)}` : null}
      </p>
      {apple.problem ? <p className="field-error">{apple.problem}</p> : null}
      {apple.missing.length ? (
        <p className="field-hint">
          {apple.on ? 'Missing settings: ' : 'To turn it on, set: '}
          {apple.missing.map((name, index) => (
            <span key={name}>
              {index ? ', ' : null}
              <code>{name}</code>
            </span>
          ))}
        </p>
      ) : null}
    </section>
  )
}
