import { type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { FormErrors, UNREADABLE_SUBMISSION } from '#app/components/forms.tsx'
import { notFound } from '#app/server/http-errors.server.ts'
import { passRetryAfter } from '#app/server/rate-limit-reply.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { timeZoneNames } from '#app/utils/local-time.ts'
import { groupTimeZones } from '#app/utils/time-zone-choice.ts'
import { getProfileUser } from '#models/user.server.ts'
import { profileAction, type ProfileActionData, type ProfileIntent } from './__profile-actions.server.ts'
import { DeleteProfileForm, EmailForm, LogoForm, PasswordForm, TimeZoneForm } from './__profile-forms.tsx'

export const handle: AccountHandle = { title: 'Profile settings', back: 'hidden' }

export async function loader({ request }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const user = await getProfileUser(userId)
  if (!user) throw notFound('Account not found')
  // The server's list, so the page and its hydration agree whatever zones the browser knows. A stored zone the
  // list lacks (another runtime's name) is still offered, so the select shows what is stored.
  const names = timeZoneNames().includes(user.timeZone) ? timeZoneNames() : [user.timeZone, ...timeZoneNames()]
  return {
    email: user.email,
    hasPassword: user.hasPassword,
    logoUrl: user.logoUrl,
    timeZone: user.timeZone,
    timeZoneGroups: groupTimeZones(names),
  }
}

export async function action({ request }: ActionFunctionArgs) {
  return profileAction(request)
}

export default function ProfileSettings() {
  const { email, hasPassword, logoUrl, timeZone, timeZoneGroups } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>() as ProfileActionData | undefined
  // Each form shows only the answer to its own submission.
  const resultFor = (intent: ProfileIntent) => (actionData?.intent === intent ? actionData.result : undefined)
  return (
    <div className="profile-settings">
      <h1>Profile settings</h1>
      {/* A refused submission of none of the forms (no intent, or a body that is no form). */}
      {actionData && actionData.intent === null ? (
        <FormErrors id="profile-errors" errors={[UNREADABLE_SUBMISSION]} />
      ) : null}
      <section className="panel profile-section" aria-labelledby="profile-logo-title">
        <h2 id="profile-logo-title">Logo</h2>
        <LogoForm key={logoUrl ?? 'none'} logoUrl={logoUrl} lastResult={resultFor('logo')} />
      </section>
      <section className="panel profile-section" aria-labelledby="profile-email-title">
        <h2 id="profile-email-title">Email address</h2>
        <EmailForm email={email} hasPassword={hasPassword} lastResult={resultFor('email')} />
      </section>
      <section className="panel profile-section" aria-labelledby="profile-password-title">
        <h2 id="profile-password-title">{hasPassword ? 'Password' : 'Set a password'}</h2>
        <PasswordForm key={String(hasPassword)} hasPassword={hasPassword} lastResult={resultFor('password')} />
      </section>
      <section className="panel profile-section" aria-labelledby="profile-time-zone-title">
        <h2 id="profile-time-zone-title">Time zone</h2>
        <TimeZoneForm key={timeZone} timeZone={timeZone} groups={timeZoneGroups} lastResult={resultFor('time-zone')} />
      </section>
      <section className="panel profile-section profile-section--danger" aria-labelledby="profile-delete-title">
        <h2 id="profile-delete-title">Delete profile</h2>
        <DeleteProfileForm email={email} lastResult={resultFor('delete')} />
      </section>
    </div>
  )
}

export const meta: MetaFunction = () => [{ title: 'Profile settings — Stampwise' }]

export const headers = passRetryAfter
