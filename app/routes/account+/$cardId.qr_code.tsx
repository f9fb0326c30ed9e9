import { type MetaFunction } from '@remix-run/react'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { qrCodeLoader } from './__qr-code-page.server.ts'
import { QrCodePage } from './__qr-code-page.tsx'

// "QR code, no title" (specification, route table).
export const handle: AccountHandle = { back: 'previous' }
export const loader = qrCodeLoader
export default QrCodePage
export const meta: MetaFunction = () => [{ title: 'QR code — Stampwise' }]
