import { type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, Outlet, useMatches, useRouteLoaderData } from '@remix-run/react'
import { type ReactNode } from 'react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { Logo } from '#app/components/logo.tsx'
import { requireUserId } from '#app/services/auth/session.server.ts'
import cardDesignFormStylesHref from '#app/styles/card-design-form.css?url'
import cardPreviewStylesHref from '#app/styles/card-preview.css?url'
import onboardingStylesHref from '#app/styles/onboarding.css?url'
import { ONBOARDING_STEPS, stepIndex, type OnboardingHandle } from '#app/utils/card-design-steps.ts'

/** The card-creation onboarding: signed-in only, without the account header; a small top bar with the steps. */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireUserId(request)
  // Something to find in the error boundary: there, no data means this loader failed, not a step.
  return { signedIn: true }
}

export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: cardPreviewStylesHref },
  { rel: 'stylesheet', href: onboardingStylesHref },
  { rel: 'stylesheet', href: cardDesignFormStylesHref },
]

export default function OnboardingLayout() {
  const matches = useMatches()
  const current = [...matches]
    .reverse()
    .map((match) => (match.handle as OnboardingHandle | undefined)?.onboardingStep)
    .find(Boolean)
  return (
    <OnboardingShell current={current}>
      <Outlet />
    </OnboardingShell>
  )
}

/** An error in a set-up step shows under the onboarding bar (without the steps); a failed layout loader: the root's. */
export function ErrorBoundary() {
  if (!useRouteLoaderData<typeof loader>('routes/_onboarding+/_layout')) return <GeneralErrorBoundary />
  return (
    <OnboardingShell current={undefined}>
      <GeneralErrorBoundary as="div" />
    </OnboardingShell>
  )
}

function OnboardingShell({ current, children }: { current: OnboardingHandle['onboardingStep']; children: ReactNode }) {
  return (
    <div className="onboarding-shell">
      <header className="onboarding-bar">
        <div className="container onboarding-bar__inner">
          <Link to="/account" aria-label="Stampwise account">
            <Logo />
          </Link>
          {current ? <StepIndicator current={stepIndex(current)} /> : null}
          <Form method="POST" action="/logout">
            <button type="submit" className="button button--ghost">
              Log Out
            </button>
          </Form>
        </div>
      </header>
      <main id="content" className="container onboarding-main">
        {children}
      </main>
    </div>
  )
}

function StepIndicator({ current }: { current: number }) {
  return (
    <nav aria-label="Card set-up steps" className="onboarding-steps">
      <p className="onboarding-steps__count">{`Step ${current + 1} of ${ONBOARDING_STEPS.length}`}</p>
      <ol>
        {ONBOARDING_STEPS.map((entry, index) => (
          <li
            key={entry.step}
            className={index < current ? 'is-done' : index === current ? 'is-current' : undefined}
            aria-current={index === current ? 'step' : undefined}
          >
            {entry.label}
          </li>
        ))}
      </ol>
    </nav>
  )
}
