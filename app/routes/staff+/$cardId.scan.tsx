import { type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ScanPage, type ScanActionAnswer } from '#app/components/scan/scan-page.tsx'
import { requireStaff } from '#app/services/auth/session.server.ts'
import scanStylesHref from '#app/styles/scan.css?url'
import { loadScanPage, scanAction, type ScanActor } from '../__scan-page.server.ts'

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: scanStylesHref }]

const staffActor = ({ staffId, ownerId }: { staffId: string; ownerId: string }): ScanActor => ({
  kind: 'staff',
  ownerId,
  staffId,
})

/** The counter's scan page: a card of the member's employer (another owner's card: 404), as the owner's page. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const staff = await requireStaff(request)
  return loadScanPage(request, staffActor(staff), params.cardId)
}

/** Stamp, Undo (their own stamp only) and Redeem; a stamping rule's refusal stands (staff never override). */
export async function action({ request, params }: ActionFunctionArgs) {
  const staff = await requireStaff(request)
  return scanAction(request, staffActor(staff), params.cardId)
}

export default function StaffScanPage() {
  const data = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>() as ScanActionAnswer | undefined
  return (
    <>
      <p>
        <Link to="/staff">
          <span aria-hidden="true">←</span> All cards
        </Link>
      </p>
      <ScanPage
        data={data}
        actionData={actionData}
        lead={
          <>
            Stamp a holder’s pass of <strong>{data.card.title || 'this card'}</strong>: scan their QR code or type the
            code printed under it.
          </>
        }
      />
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Scan — Stampwise' }]

export function ErrorBoundary() {
  return <GeneralErrorBoundary as="div" />
}
