import { Outlet, useLoaderData } from '@remix-run/react'
import { SiteFooter } from '#app/components/site-footer.tsx'
import { SiteHeader } from '#app/components/site-header.tsx'
import { getEnv } from '#app/server/env.server.ts'

export async function loader() {
  return { supportEmail: getEnv().SUPPORT_EMAIL }
}

export default function MarketingLayout() {
  const { supportEmail } = useLoaderData<typeof loader>()
  return (
    <>
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <SiteHeader />
      <div id="content" className="site-content">
        <Outlet />
      </div>
      <SiteFooter supportEmail={supportEmail} />
    </>
  )
}
