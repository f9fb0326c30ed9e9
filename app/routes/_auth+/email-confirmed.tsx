import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { Toaster, type ToastView } from '#app/components/toaster.tsx'
import { passRetryAfter, tooManyRequests, unlessRateLimited } from '#app/server/rate-limit-reply.server.ts'
import { confirmEmailWithToken, EMAIL_CONFIRMED_MESSAGE, TOKEN_MESSAGES } from '#app/services/auth/auth.server.ts'
import { RateLimitedError } from '#app/services/auth/rate-limit.server.ts'
import { clientAddress } from '#app/services/auth/session.server.ts'
import { TokenSchema } from '#app/utils/auth-schemas.ts'
import { type AuthHandle } from './_layout.tsx'

export const handle: AuthHandle = { backTo: '/' }

/** The page text, and the same message as a toast when a link was checked (the specification shows both). */
function outcome(status: 'success' | 'error', message: string, init?: ResponseInit) {
  const toast: ToastView = { id: crypto.randomUUID(), message, type: status, durationMs: 4000 }
  return data({ failed: status === 'error', message, toast }, init)
}

/**
 * Confirms on load, the one GET that changes data (docs/product/contracts.md): confirming is idempotent, and it is not
 * a guest-only page, so a signed-in owner can confirm a new address too.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const rawToken = new URL(request.url).searchParams.get('token')
  if (rawToken === null) return data({ failed: false, message: EMAIL_CONFIRMED_MESSAGE, toast: null })
  const parsed = TokenSchema.safeParse({ token: rawToken })
  if (!parsed.success) return outcome('error', TOKEN_MESSAGES.unknown, { status: 400 })
  const result = await unlessRateLimited(
    confirmEmailWithToken({ token: parsed.data.token, ip: clientAddress(request) }),
  )
  if (result instanceof RateLimitedError) {
    return outcome('error', result.message, tooManyRequests(result))
  }
  return outcome(result.status, result.message, { status: result.status === 'success' ? 200 : 400 })
}

export default function EmailConfirmed() {
  const { failed, message, toast } = useLoaderData<typeof loader>()
  return (
    <>
      <h1>{failed ? 'We could not confirm your e-mail' : 'E-mail confirmed'}</h1>
      <p className={failed ? 'form-message form-message--error' : undefined}>{message}</p>
      {failed ? (
        <p>
          Need a new link? <Link to="/verify-email">Send the confirmation e-mail again</Link>.
        </p>
      ) : null}
      <Link to="/account" className="button button--block">
        Get started
      </Link>
      <Toaster toast={toast} />
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'E-mail confirmed — Stampwise' }]

export const headers = passRetryAfter
