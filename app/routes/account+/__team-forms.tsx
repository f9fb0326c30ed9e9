import { getFormProps, type SubmissionResult } from '@conform-to/react'
import { Form } from '@remix-run/react'
import { FormErrors, InputField } from '#app/components/forms.tsx'
import { IntentButton } from '#app/components/intent-button.tsx'
import { INVITE_INTENT, InviteSchema, REMOVE_INTENT, RESEND_INTENT, type StaffStatus } from '#app/utils/staff.ts'
import { useSchemaForm } from '#app/utils/use-schema-form.ts'

/** The forms of /account/team: the invitation (name and e-mail) and each member's row with Resend and Remove. */
export function InviteForm({ lastResult }: { lastResult: SubmissionResult<string[]> | null | undefined }) {
  const [form, fields] = useSchemaForm(InviteSchema, { id: 'invite-form', lastResult })
  return (
    <Form method="POST" className="form" {...getFormProps(form)}>
      <input type="hidden" name="intent" value={INVITE_INTENT} />
      <FormErrors id={form.errorId} errors={form.errors} />
      <InputField
        meta={fields.name}
        label="Name"
        hint="How you and the activity list will call them."
        autoComplete="off"
      />
      <InputField
        meta={fields.email}
        label="E-mail"
        type="email"
        autoComplete="off"
        hint="We send the invitation here."
      />
      <IntentButton intent={INVITE_INTENT} pendingLabel="Sending…">
        Send invitation
      </IntentButton>
    </Form>
  )
}

type Member = {
  id: string
  name: string
  email: string
  status: StaffStatus
  invitedUntil: string | null
  invitedUntilIso: string | null
}

function StatusText({ member }: { member: Member }) {
  switch (member.status) {
    case 'active':
      return <span className="badge">Active</span>
    case 'invited':
      return (
        <>
          <span className="badge">Invited</span> until{' '}
          <time dateTime={member.invitedUntilIso!}>{member.invitedUntil}</time>
        </>
      )
    case 'expired':
      return <span className="badge">Invitation expired</span>
    case 'suspended':
      return (
        <>
          <span className="badge">Suspended</span> Your plan has fewer seats than your team: they cannot sign in.
        </>
      )
  }
}

export function TeamList({ members }: { members: Member[] }) {
  if (!members.length) return <p className="panel">No team members yet. Invite the people who stamp at your counter.</p>
  return (
    <ul className="team-list">
      {members.map((member) => (
        <li key={member.id} className="panel">
          <p>
            <strong>{member.name}</strong>
          </p>
          <p className="team-list__email">{member.email}</p>
          <p className="field-hint">
            <StatusText member={member} />
          </p>
          <div className="actions">
            {member.status === 'invited' || member.status === 'expired' ? (
              <MemberButton member={member} intent={RESEND_INTENT} label="Resend invitation" pending="Sending…" />
            ) : null}
            <MemberButton member={member} intent={REMOVE_INTENT} label="Remove" pending="Removing…" />
          </div>
        </li>
      ))}
    </ul>
  )
}

function MemberButton({
  member,
  intent,
  label,
  pending,
}: {
  member: Member
  intent: string
  label: string
  pending: string
}) {
  return (
    <Form method="POST">
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="staffId" value={member.id} />
      <IntentButton intent={intent} pendingLabel={pending} className="button button--ghost">
        <span>{label}</span>
        <span className="visually-hidden">{` ${member.name}`}</span>
      </IntentButton>
    </Form>
  )
}
