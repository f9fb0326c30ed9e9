/**
 * 'Login with Apple' and 'Login with Google'. Each is a plain link to the provider's start address, so it works
 * without JavaScript (a link rather than a form: CSP's form-action would block the redirect to the provider). A
 * provider that is not configured keeps its button visible but disabled, with the reason.
 */
export function SocialSignIn({ providers }: { providers: { google: boolean; apple: boolean } }) {
  return (
    <div className="social-sign-in">
      <SocialButton href="/login_apple" label="Login with Apple" configured={providers.apple} provider="Apple" />
      <SocialButton href="/login_google" label="Login with Google" configured={providers.google} provider="Google" />
    </div>
  )
}

function SocialButton({
  href,
  label,
  configured,
  provider,
}: {
  href: string
  label: string
  configured: boolean
  provider: string
}) {
  if (!configured) {
    const noteId = `${provider.toLowerCase()}-unavailable`
    return (
      <div className="social-button-wrap">
        <button type="button" className="button button--ghost button--block" disabled aria-describedby={noteId}>
          {label}
        </button>
        <p id={noteId} className="field-hint">
          Sign-in with {provider} is not set up on this server yet. Please use your e-mail and password.
        </p>
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
