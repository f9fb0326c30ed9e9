import { type MetaFunction } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotFoundScreen } from '#app/components/error-screens.tsx'
import { notFound } from '#app/server/http-errors.server.ts'

// Any address no other route claims: answer 404 (not a soft 200) and show the not-found page inside the site chrome.
export async function loader() {
  throw notFound()
}

export default function NotFound() {
  return <NotFoundScreen />
}

export const meta: MetaFunction = () => [{ title: 'Page not found — Stampwise' }]

// The loader's 404, inside the site chrome like the page itself.
export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
