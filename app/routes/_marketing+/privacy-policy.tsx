import { useLoaderData, type MetaFunction } from '@remix-run/react'
import { getEnv } from '#app/server/env.server.ts'
import { getLegalPage } from '#app/services/content/pages.server.ts'
import { LegalPage, legalMeta } from './__legal-page.tsx'

/** The text is content/pages/privacy-policy.md. */
export async function loader() {
  return { page: getLegalPage('privacy-policy', { supportEmail: getEnv().SUPPORT_EMAIL }) }
}

export default function PrivacyPolicy() {
  const { page } = useLoaderData<typeof loader>()
  return <LegalPage page={page} />
}

export const meta: MetaFunction<typeof loader> = ({ data }) => legalMeta(data, 'Privacy policy')
