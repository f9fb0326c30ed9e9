import { type LoaderFunctionArgs } from '@remix-run/node'
import { notFound } from '#app/server/http-errors.server.ts'
import { APPLE_PASS_CONTENT_TYPE, getLatestApplePass } from '#app/services/wallet/apple-pass-download.server.ts'

/**
 * GET /p/{passId}/wallet.pkpass: the holder's card as an Apple Wallet pass (docs/product/wallets.md, "Apple pass"),
 * what the pass page's 'Add to Apple Wallet' link opens. 404 when Apple Wallet is off or the pass does not exist.
 */
export async function loader({ params }: LoaderFunctionArgs) {
  const pass = await getLatestApplePass(params.passId ?? '')
  if (!pass) return notFound('Not found', { 'Cache-Control': 'no-store' })
  return new Response(new Uint8Array(pass.pkpass), {
    headers: {
      'Content-Type': APPLE_PASS_CONTENT_TYPE,
      'Content-Length': String(pass.pkpass.byteLength),
      'Content-Disposition': 'attachment; filename="card.pkpass"',
      'Last-Modified': pass.modifiedAt.toUTCString(),
      // The pass changes with every stamp: always asked again, never shared by caches.
      'Cache-Control': 'private, no-cache',
    },
  })
}
