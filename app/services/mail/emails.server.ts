import { getEnv } from '#app/server/env.server.ts'
import { quotedName } from '#app/utils/plain-name.ts'

/** The e-mails Stampwise sends, each with a plain-text and an HTML part; links are built from APP_URL. */
type Email = { subject: string; text: string; html: string }

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

export const appLink = (pathname: string, query: Record<string, string> = {}) => {
  const url = new URL(pathname, `${getEnv().APP_URL}/`)
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value)
  return url.toString()
}

type MailContent = {
  heading: string
  paragraphs: string[]
  action?: { label: string; href: string }
  /** A quieter link under the button (a way out, such as declining). */
  secondary?: { lead: string; label: string; href: string }
  /** Why the recipient gets it; an owner's account unless said (a holder has none). */
  reason?: string
}

const ACCOUNT_REASON = 'You receive this e-mail because of your Stampwise account.'

function layout({ heading, paragraphs, action, secondary, reason = ACCOUNT_REASON }: MailContent) {
  const button = action
    ? `<p style="margin:24px 0"><a href="${escapeHtml(action.href)}" style="background:#b9381b;color:#ffffff;padding:12px 20px;border-radius:999px;text-decoration:none;font-weight:600">${escapeHtml(action.label)}</a></p>
       <p style="color:#4a5568;font-size:13px">If the button does not work, copy this address into your browser:<br>${escapeHtml(action.href)}</p>`
    : ''
  return `<!doctype html><html><body style="margin:0;background:#fffaf5;font-family:system-ui,-apple-system,Segoe UI,Roboto,Arial,sans-serif;color:#17233b">
<div style="max-width:560px;margin:0 auto;padding:32px 24px">
<p style="font-weight:700;font-size:18px;margin:0 0 24px">Stampwise</p>
<h1 style="font-size:22px;margin:0 0 16px">${escapeHtml(heading)}</h1>
${paragraphs.map((p) => `<p style="line-height:1.5">${escapeHtml(p)}</p>`).join('\n')}
${button}
${secondary ? `<p style="color:#4a5568;font-size:14px">${escapeHtml(secondary.lead)} <a href="${escapeHtml(secondary.href)}" style="color:#17233b">${escapeHtml(secondary.label)}</a></p>` : ''}
<p style="color:#4a5568;font-size:13px;margin-top:32px">${escapeHtml(reason)} Questions? Reply to ${escapeHtml(getEnv().SUPPORT_EMAIL)}.</p>
</div></body></html>`
}

function text({ heading, paragraphs, action, secondary }: MailContent) {
  return [
    heading,
    '',
    ...paragraphs.flatMap((p) => [p, '']),
    ...(action ? [`${action.label}: ${action.href}`, ''] : []),
    ...(secondary ? [`${secondary.lead} ${secondary.label}: ${secondary.href}`, ''] : []),
    '— Stampwise',
  ].join('\n')
}

function email(subject: string, content: MailContent): Email {
  return { subject, text: text(content), html: layout(content) }
}

export function confirmationEmail(token: string): Email {
  return email('Confirm your e-mail for Stampwise', {
    heading: 'Confirm your e-mail address',
    paragraphs: [
      'Welcome to Stampwise! Confirm your address to start your free 14-day trial.',
      'The link works for 48 hours.',
    ],
    action: { label: 'Confirm my e-mail', href: appLink('/email-confirmed', { token }) },
  })
}

export function passwordResetEmail(token: string): Email {
  return email('Reset your Stampwise password', {
    heading: 'Choose a new password',
    paragraphs: [
      'Someone asked to reset the password of your Stampwise account. If it was you, choose a new password below.',
      'The link works for one hour and only once. If you did not ask for it, ignore this e-mail: your password stays as it is.',
    ],
    action: { label: 'Choose a new password', href: appLink('/change-password', { token }) },
  })
}

export function premadeInvitationEmail(oneTimePassword: string): Email {
  return email('Your Stampwise account is ready', {
    heading: 'We prepared a loyalty card for you',
    paragraphs: [
      'The Stampwise team created an account for you, with a stamp card ready to print.',
      `Sign in with this e-mail address and the one-time password ${oneTimePassword}. You will then choose your own password.`,
    ],
    action: { label: 'Sign in', href: appLink('/login') },
  })
}

export function emailChangeEmail(token: string): Email {
  return email('Confirm your new e-mail for Stampwise', {
    heading: 'Confirm your new e-mail address',
    paragraphs: [
      'Confirm this address to use it for your Stampwise account. Until then, your old address stays in use.',
    ],
    action: { label: 'Confirm my new e-mail', href: appLink('/email-confirmed', { token }) },
  })
}

/** To the old address when an e-mail change starts: the owner learns of it even if someone else asked. */
export function emailChangeNoticeEmail(newEmail: string): Email {
  return email('Your Stampwise e-mail address is changing', {
    heading: 'A change of e-mail address was requested',
    paragraphs: [
      `Someone signed in to your Stampwise account asked to use ${newEmail} from now on. We sent a confirmation link to that address; your address changes only when the link is opened.`,
      'If it was not you, change your password in Profile settings and contact us by replying to this e-mail.',
    ],
    action: { label: 'Open profile settings', href: appLink('/account/profile') },
  })
}

/** A card payment of the owner's plan failed (docs/product/paying-by-card.md, "Mapping"): the way to fix the card. */
export function paymentFailedEmail({ plan, accessEndsAt }: { plan: string; accessEndsAt: Date }): Email {
  const until = accessEndsAt.toISOString().slice(0, 10)
  return email('Your Stampwise card payment failed', {
    heading: 'Your card payment failed',
    paragraphs: [
      `We could not take the payment for your ${plan} plan. Your plan keeps working until ${until}: update your card before then to keep it.`,
      "Your customers' cards keep working whatever happens: stamps and rewards never stop.",
    ],
    action: { label: 'Update your card', href: appLink('/account/plan') },
  })
}

export function supportMessageEmail(input: {
  source: string
  from?: string | null
  subject?: string | null
  message: string
}): Email {
  return email(`[Stampwise ${input.source}] ${input.subject ?? 'New message'}`, {
    heading: `New message from the ${input.source} form`,
    paragraphs: [`From: ${input.from ?? 'not given'}`, input.message],
  })
}

/**
 * A staff invitation (app/services/team/team.server.ts): the link sets the member's password (/join-team); 'Not you?
 * Decline' frees the address (/decline-invitation). The owner typed both names: they are quoted as data, plain text
 * only, never the mail's own sentence (docs/decisions/052-invitations-hold-no-address.md).
 */
export function staffInvitationEmail({ token, name, from }: { token: string; name: string; from: string }): Email {
  const business = quotedName(from, 'a business')
  const invitee = quotedName(name, 'you')
  return email(`Invitation from ${business} to stamp loyalty cards on Stampwise`, {
    heading: `An invitation for ${invitee} from ${business}`,
    paragraphs: [
      `The business ${business} uses Stampwise for its loyalty cards and invited this address to its team, to stamp customers’ cards at the counter.`,
      'Choose a password to accept. The link works for 7 days and only once; then sign in with this e-mail address.',
      'If you did not expect this e-mail, ignore it: nothing happens without you.',
    ],
    action: { label: 'Choose my password', href: appLink('/join-team', { token }) },
    secondary: { lead: 'Not you?', label: 'Decline', href: appLink('/decline-invitation', { token }) },
  })
}

/**
 * A holder confirms the e-mail they gave a card (issue 34): the business's name is quoted data, never the mail's
 * own sentence (DECISIONS.md, third review).
 */
export function holderEmailConfirmationEmail({ token, businessName }: { token: string; businessName: string }): Email {
  return email('Confirm your e-mail for your stamp card', {
    heading: 'Confirm your e-mail address',
    paragraphs: [
      `You gave this address to keep your stamp card of ${quotedName(businessName, 'a business')} safe. Confirm it, and you can get the card back on a new phone.`,
      'The link works for 48 hours. If it was not you, ignore this e-mail: an address that is not confirmed is never used.',
    ],
    action: { label: 'Confirm my e-mail', href: appLink('/p/confirm-email', { token }) },
    reason: 'You receive this e-mail because this address was given for a Stampwise stamp card.',
  })
}
