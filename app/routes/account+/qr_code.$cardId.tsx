import { type MetaFunction } from '@remix-run/react'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { qrCodeLoader } from './__qr-code-page.server.ts'
import { QrCodePage } from './__qr-code-page.tsx'

// The specification's second address for the same page.
export const handle: AccountHandle = { back: 'previous' }
export const loader = qrCodeLoader
export default QrCodePage
export const meta: MetaFunction = () => [{ title: 'QR code — Stampwise' }]
