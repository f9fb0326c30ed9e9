import { type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { FormErrors, UNREADABLE_SUBMISSION } from '#app/components/forms.tsx'
import { readFormData } from '#app/server/form-data.server.ts'
import { formReply } from '#app/server/form-reply.server.ts'
import { rateLimitedFormReply, unlessRateLimited } from '#app/server/rate-limit-reply.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { RateLimitedError } from '#app/services/auth/rate-limit.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { inviteStaff, removeStaff, resendInvitation } from '#app/services/team/team.server.ts'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { formatLocalDateTime } from '#app/utils/local-time.ts'
import {
  INVITE_INTENT,
  InviteSchema,
  isTeamIntent,
  MemberSchema,
  REMOVE_INTENT,
  staffStatus,
  type TeamIntent,
} from '#app/utils/staff.ts'
import { countSeatHolders, getStaffSeats, listTeam } from '#models/staff.server.ts'
import { getOwnerTimeZone } from '#models/user.server.ts'
import { InviteForm, TeamList } from './__team-forms.tsx'

export const handle: AccountHandle = { title: 'Team', back: 'account' }

/**
 * /account/team (docs/product/staff-locations-rules.md): the owner's staff, each with their state
 * (active, invited until…, invitation expired, suspended), the seats the plan gives and the ways to invite, resend
 * and remove. Works without JavaScript: every form posts here and comes back with a toast (post/redirect/get).
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const now = new Date()
  const [members, seats, taken, timeZone] = await Promise.all([
    listTeam(userId),
    getStaffSeats(userId),
    countSeatHolders(userId),
    getOwnerTimeZone(userId),
  ])
  return {
    seats,
    taken,
    timeZone,
    members: members.map((member) => ({
      id: member.id,
      name: member.name,
      email: member.email,
      status: staffStatus(member, now),
      invitedUntil: member.invitationExpiresAt
        ? formatLocalDateTime(new Date(member.invitationExpiresAt), timeZone)
        : null,
      invitedUntilIso: member.invitationExpiresAt ? new Date(member.invitationExpiresAt).toISOString() : null,
    })),
  }
}

export type TeamActionData = {
  intent: TeamIntent | null
  result: SubmissionResult<string[]> | null
  /** A resend or remove refused: its message, shown above the list. */
  error?: string
  /** No seat left: the page shows the way to more. */
  upgrade?: boolean
}

export async function action({ request }: ActionFunctionArgs) {
  const ownerId = await requireUserId(request)
  const formData = await readFormData(request)
  const intent = formData.get('intent')
  if (!isTeamIntent(intent)) {
    return formReply<TeamActionData>({ intent: null, result: null, error: UNREADABLE_SUBMISSION })
  }
  const back = (message: string) => redirectWithToast('/account/team', { message, durationMs: 6000 })

  if (intent === INVITE_INTENT) {
    const submission = parseWithZod(formData, { schema: InviteSchema })
    if (submission.status !== 'success') {
      return formReply<TeamActionData>({ intent, result: submission.reply() })
    }
    const outcome = await unlessRateLimited(inviteStaff({ ownerId, ...submission.value }))
    if (outcome instanceof RateLimitedError) return rateLimitedFormReply(submission, outcome, { extra: { intent } })
    if (outcome.status === 'success') return back(outcome.message)
    const reply = outcome.field
      ? submission.reply({ fieldErrors: { [outcome.field]: [outcome.message] } })
      : submission.reply({ formErrors: [outcome.message] })
    return formReply<TeamActionData>({ intent, result: reply, upgrade: outcome.upgrade }, outcome.httpStatus)
  }

  const submission = parseWithZod(formData, { schema: MemberSchema })
  if (submission.status !== 'success') {
    return formReply<TeamActionData>({ intent, result: null, error: UNREADABLE_SUBMISSION })
  }
  const { staffId } = submission.value
  const outcome = await unlessRateLimited(
    intent === REMOVE_INTENT ? removeStaff({ ownerId, staffId }) : resendInvitation({ ownerId, staffId }),
  )
  if (outcome instanceof RateLimitedError) {
    return formReply<TeamActionData>({ intent, result: null, error: outcome.message }, 429)
  }
  if (outcome.status === 'success') return back(outcome.message)
  return formReply<TeamActionData>(
    { intent, result: null, error: outcome.message, upgrade: outcome.upgrade },
    outcome.httpStatus,
  )
}

export default function Team() {
  const { seats, taken, members } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>() as TeamActionData | undefined
  const full = taken >= seats
  return (
    <>
      <h1>Team</h1>
      <p className="lead">
        Staff sign in with their own e-mail and password and land on their counter page: they can stamp, undo their own
        stamp and redeem rewards, nothing else.
      </p>
      <section className="panel" aria-labelledby="seats-title">
        <h2 id="seats-title">Seats</h2>
        <p>
          {taken} of {seats} staff {seats === 1 ? 'seat' : 'seats'} taken. A pending invitation holds a seat for 7 days.
        </p>
        {full ? <UpgradePath /> : null}
      </section>
      <section className="panel" aria-labelledby="invite-title">
        <h2 id="invite-title">Invite a team member</h2>
        <InviteForm lastResult={actionData?.intent === INVITE_INTENT ? actionData.result : undefined} />
        {actionData?.intent === INVITE_INTENT && actionData.upgrade && !full ? <UpgradePath /> : null}
      </section>
      <section aria-labelledby="members-title">
        <h2 id="members-title">Your team</h2>
        {actionData?.error ? <FormErrors id="team-errors" errors={[actionData.error]} /> : null}
        {actionData?.error && actionData.upgrade ? <UpgradePath /> : null}
        <TeamList members={members} />
      </section>
    </>
  )
}

function UpgradePath() {
  return (
    <p className="notice-panel">
      Need more seats? Standard has 5 and Premium 20: <Link to="/account/tariffs">upgrade your plan</Link>.
    </p>
  )
}

export const meta: MetaFunction = () => [{ title: 'Team — Stampwise' }]
