import { useLoaderData, type MetaFunction } from '@remix-run/react'
import { getEnv } from '#app/server/env.server.ts'
import { getLegalPage } from '#app/services/content/pages.server.ts'
import { LegalPage, legalMeta } from './__legal-page.tsx'

/** The text is content/pages/terms.md. */
export async function loader() {
  return { page: getLegalPage('terms', { supportEmail: getEnv().SUPPORT_EMAIL }) }
}

export default function Terms() {
  const { page } = useLoaderData<typeof loader>()
  return <LegalPage page={page} />
}

export const meta: MetaFunction<typeof loader> = ({ data }) => legalMeta(data, 'Terms of service')
