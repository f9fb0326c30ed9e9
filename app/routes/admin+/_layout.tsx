import { type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, NavLink, Outlet, useLoaderData, useRouteLoaderData, type MetaFunction } from '@remix-run/react'
import { type ReactNode } from 'react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { requireAdmin } from '#app/services/admin/admin.server.ts'
import adminStylesHref from '#app/styles/admin.css?url'
import cardPreviewStylesHref from '#app/styles/card-preview.css?url'
import { getPublicUser } from '#models/user.server.ts'

/**
 * Every /admin page: the admin role, checked here for the header and again by each page's own loader and action
 * (app/services/admin/admin.server.ts). Plain links and forms: it all works without JavaScript.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const adminId = await requireAdmin(request)
  const admin = await getPublicUser(adminId)
  return { admin: { email: admin?.email ?? '' } }
}

export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: cardPreviewStylesHref },
  { rel: 'stylesheet', href: adminStylesHref },
]

export default function AdminLayout() {
  const { admin } = useLoaderData<typeof loader>()
  return (
    <AdminShell email={admin.email}>
      <Outlet />
    </AdminShell>
  )
}

/**
 * An error in an /admin page shows inside the admin chrome. When the layout's own loader refused (not an admin:
 * 403) or failed, there is no admin to show: the page is the root's.
 */
export function ErrorBoundary() {
  const data = useRouteLoaderData<typeof loader>('routes/admin+/_layout')
  if (!data) return <GeneralErrorBoundary />
  return (
    <AdminShell email={data.admin.email}>
      <GeneralErrorBoundary as="div" />
    </AdminShell>
  )
}

function AdminShell({ email, children }: { email: string; children: ReactNode }) {
  return (
    <div className="admin-shell">
      <header className="admin-header">
        <Link to="/admin" className="admin-header__brand">
          Stampwise admin
        </Link>
        <nav aria-label="Admin">
          <NavLink to="/admin" end>
            Users
          </NavLink>
          <NavLink to="/admin/users/new">New account</NavLink>
          <NavLink to="/admin/feedback">Feedback</NavLink>
          <Link to="/account">My account</Link>
        </nav>
        <span className="admin-header__who">{email}</span>
        <Form method="POST" action="/logout">
          <button type="submit" className="button button--ghost">
            Log Out
          </button>
        </Form>
      </header>
      <main id="content" className="container admin-main">
        {children}
      </main>
    </div>
  )
}

// An error page keeps the title it had before this layout showed errors: the root's.
export const meta: MetaFunction = ({ error, matches }) =>
  error ? (matches.find((match) => match.id === 'root')?.meta ?? []) : [{ title: 'Admin — Stampwise' }]
