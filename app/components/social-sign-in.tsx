/**
 * 'Login with Apple' and 'Login with Google'. Each is a plain link to the provider's start address, so it works
 * without JavaScript (a link rather than a form: CSP's form-action would block the redirect to the provider). A
 * provider that is not configured keeps its button (the specification's), disabled, and one quiet line under the
 * buttons says so in a person's words; the settings that turn it on are named only outside production (issue 30).
 */
type Providers = { google: boolean; apple: boolean }

export function SocialSignIn({ providers, setupNote }: { providers: Providers; setupNote: string | null }) {
  const missing = [providers.apple ? null : 'Apple', providers.google ? null : 'Google'].filter(Boolean)
  return (
    <div className="social-sign-in">
      <SocialButton href="/login_apple" label="Login with Apple" configured={providers.apple} />
      <SocialButton href="/login_google" label="Login with Google" configured={providers.google} />
      {missing.length ? (
        <p id="social-unavailable" className="field-hint social-sign-in__note">
          {`Sign-in with ${missing.join(' or ')} is not available here yet: use your e-mail and password.`}
          {setupNote ? <span className="social-sign-in__setup">{setupNote}</span> : null}
        </p>
      ) : null}
    </div>
  )
}

function SocialButton({ href, label, configured }: { href: string; label: string; configured: boolean }) {
  if (!configured) {
    return (
      <div className="social-button-wrap">
        <button
          type="button"
          className="button button--ghost button--block"
          disabled
          aria-describedby="social-unavailable"
        >
          {label}
        </button>
      </div>
    )
  }
  return (
    <div className="social-button-wrap">
      <a href={href} className="button button--ghost button--block">
        {label}
      </a>
    </div>
  )
}
