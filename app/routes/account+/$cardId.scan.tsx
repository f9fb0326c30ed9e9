import { type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { ScanPage, type ScanActionAnswer } from '#app/components/scan/scan-page.tsx'
import { requireUserId } from '#app/services/auth/session.server.ts'
import scanStylesHref from '#app/styles/scan.css?url'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { loadScanPage, scanAction } from '../__scan-page.server.ts'

export const handle: AccountHandle = { title: 'Scan', back: 'previous' }

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: scanStylesHref }]

/** The owner's scan page: the card, the pass the last action touched, where they stamp (their locations). */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  return loadScanPage(request, { kind: 'owner', ownerId: userId }, params.cardId)
}

/** Stamp, Undo and Redeem as the owner, who may also override a stamping rule that refused. */
export async function action({ request, params }: ActionFunctionArgs) {
  const userId = await requireUserId(request)
  return scanAction(request, { kind: 'owner', ownerId: userId }, params.cardId)
}

export default function OwnerScanPage() {
  const data = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>() as ScanActionAnswer | undefined
  return (
    <ScanPage
      data={data}
      actionData={actionData}
      lead={
        <>
          Stamp a holder’s pass of <strong>{data.card.title || 'your card'}</strong>: scan their QR code or type the
          code printed under it.
        </>
      }
    />
  )
}

export const meta: MetaFunction = () => [{ title: 'Scan — Stampwise' }]
