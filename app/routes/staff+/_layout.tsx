import { type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, Outlet, useActionData, useLoaderData, useRouteLoaderData } from '@remix-run/react'
import { type ReactNode } from 'react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { UNREADABLE_SUBMISSION } from '#app/components/forms.tsx'
import { Logo } from '#app/components/logo.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { notFound } from '#app/server/http-errors.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { requireStaff } from '#app/services/auth/session.server.ts'
import { locationChoice, rememberLocation } from '#app/services/cards/scan-location.server.ts'
import cardPreviewStylesHref from '#app/styles/card-preview.css?url'
import staffStylesHref from '#app/styles/staff.css?url'
import { LocationChoiceSchema, STAMP_MESSAGES } from '#app/utils/stamping.ts'
import { actorLocation } from '#models/locations.server.ts'
import { getStaffCounterHeader } from '#models/staff-counter.server.ts'

/**
 * Every /staff page (docs/product/staff-locations-rules.md): staff only (a guest goes to /login, an
 * owner or admin gets 404), with the staff header: the business, who is signed in, where this device stamps, the
 * cards, the password and log out. Nothing of the owner's account is linked: staff may only stamp.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const staff = await requireStaff(request)
  const header = await getStaffCounterHeader(staff)
  if (!header) throw notFound()
  const { locations, current } = await locationChoice(request, staff)
  return {
    staffName: header.staffName,
    businessName: header.businessName,
    location: current?.name ?? null,
    hasLocations: locations.length > 0,
  }
}

export type LocationActionData = { result: SubmissionResult<string[]> }

/**
 * The 'location' form (shown on /staff, posted to /staff): remembers on this device where it stamps, one of the
 * member's locations (else 400). The scan page's stamps remember it too.
 */
export async function action({ request }: ActionFunctionArgs) {
  const staff = await requireStaff(request)
  const formData = await readFormData(request)
  const submission = parseWithZod(formData, { schema: LocationChoiceSchema })
  if (submission.status !== 'success') {
    // No location form was sent (no intent, or a body that is no form): said as the form's error.
    const formErrors = submission.error?.intent ? [UNREADABLE_SUBMISSION] : undefined
    return formReply<LocationActionData>({ result: submission.reply({ formErrors }) })
  }
  const location = submission.value.locationId ? await actorLocation(submission.value.locationId, staff) : null
  if (!location) {
    const result = submission.reply({ fieldErrors: { locationId: [STAMP_MESSAGES.notYourLocation] } })
    return formReply<LocationActionData>({ result })
  }
  return redirectWithToast(
    '/staff',
    { message: `This device now stamps at ${location.name}` },
    { headers: { 'Set-Cookie': await rememberLocation(location.id) } },
  )
}

export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: cardPreviewStylesHref },
  { rel: 'stylesheet', href: staffStylesHref },
]

export default function StaffLayout() {
  return (
    <StaffShell header={useLoaderData<typeof loader>()}>
      {/* The location form's answer, for the /staff page that shows the form. */}
      <Outlet context={useActionData<typeof action>() as LocationActionData | undefined} />
    </StaffShell>
  )
}

/** An error in a /staff page shows inside the staff chrome; without the layout's data (signed out), the root's. */
export function ErrorBoundary() {
  const header = useRouteLoaderData<typeof loader>('routes/staff+/_layout')
  if (!header) return <GeneralErrorBoundary />
  return (
    <StaffShell header={header}>
      <GeneralErrorBoundary as="div" />
    </StaffShell>
  )
}

type Header = ReturnType<typeof useLoaderData<typeof loader>>

function StaffShell({ header, children }: { header: Header; children: ReactNode }) {
  return (
    <div className="staff-shell">
      <header className="staff-header">
        <div className="container staff-header__inner">
          <Link to="/staff" aria-label="Stampwise: the cards you stamp">
            <Logo />
          </Link>
          <div className="staff-header__who">
            <span className="staff-header__business">{header.businessName ?? 'Your team'}</span>
            <span className="staff-header__meta">
              {header.staffName}
              {header.hasLocations ? (
                <>
                  {' · '}
                  <span data-testid="staff-location">
                    {header.location ? `at ${header.location}` : 'no location chosen'}
                  </span>
                </>
              ) : null}
            </span>
          </div>
          <nav className="staff-header__nav" aria-label="Staff">
            <Link to="/staff">Cards</Link>
            <Link to="/staff/password">Change password</Link>
            <Form method="POST" action="/logout">
              <button type="submit" className="button button--ghost">
                Log out
              </button>
            </Form>
          </nav>
        </div>
      </header>
      <main id="content" className="container staff-main">
        {children}
      </main>
    </div>
  )
}
