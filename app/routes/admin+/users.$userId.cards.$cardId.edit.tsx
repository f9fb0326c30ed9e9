import { type SubmissionResult } from '@conform-to/react'
import { type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { DesignForm } from '#app/components/card-design-form.tsx'
import { formReply } from '#app/server/form-reply.server.ts'
import { notFound } from '#app/server/http-errors.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { requireAdmin } from '#app/services/admin/admin.server.ts'
import { readCardEditForm } from '#app/services/cards/card-design-form.server.ts'
import { cardDesignView } from '#app/services/cards/card-design.server.ts'
import { editCard } from '#app/services/cards/card-edit.server.ts'
import { CARD_NOT_FOUND, requireOwnedCard } from '#app/services/cards/owned-card.server.ts'
import cardDesignFormStylesHref from '#app/styles/card-design-form.css?url'
import { contrastWarning } from '#app/utils/contrast.ts'
import { getUserEmail } from '#models/user.server.ts'

/**
 * An admin edits a user's card: its design and reward, with the owner's own designer (card-design-form.tsx) and the
 * same schemas. The card must belong to the user in the address (else 404). Without JavaScript the preview is
 * the saved card's, rendered on the server (as on /main); with it, the preview follows the form.
 */

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireAdmin(request)
  const userId = params.userId ?? ''
  const card = await requireOwnedCard(userId, params.cardId, { view: 'design' })
  return {
    owner: { id: userId, email: (await getUserEmail(userId)) ?? '' },
    card: { id: card.id, title: card.title, status: card.status },
    design: await cardDesignView(userId, card),
    reward: { reward: card.reward, terms: card.terms },
  }
}

type EditActionData = { result: SubmissionResult<string[]> }

export async function action({ request, params }: ActionFunctionArgs) {
  const adminId = await requireAdmin(request)
  const userId = params.userId ?? ''
  const card = await requireOwnedCard(userId, params.cardId, { view: 'design' })
  const form = await readCardEditForm(request)
  if ('reply' in form) return formReply<EditActionData>({ result: form.reply })

  const outcome = await editCard({
    adminId,
    userId,
    cardId: card.id,
    values: form.values,
    logo: form.logo,
  })
  if (outcome.status === 'not-found') throw notFound(CARD_NOT_FOUND)
  const title = form.values.title
  const saved = outcome.changed.length ? `Card “${title}” saved.` : `Card “${title}”: nothing changed.`
  // The edit page warns live; after the submit (and without JavaScript) the toast is where the warning is seen.
  const warning = contrastWarning(form.values.backgroundColor, form.values.textColor)
  const message = warning ? `${saved} ${warning}` : saved
  return redirectWithToast(`/admin/users/${userId}`, { message })
}

export default function AdminCardEdit() {
  const { owner, card, design, reward } = useLoaderData<typeof loader>()
  const actionData = useActionData<EditActionData>()
  return (
    <>
      <p>
        <Link to={`/admin/users/${owner.id}`}>← {owner.email}</Link>
      </p>
      <h1>Edit the card “{card.title || 'Untitled card'}”</h1>
      <p className="lead">
        The owner’s design and reward, as they see it in their card builder. Saving changes it for the owner and every
        holder at once, and is written to the audit log.
      </p>
      <DesignForm
        key={card.id}
        design={design}
        reward={reward}
        lastResult={actionData?.result}
        submitLabel="Save the card"
      >
        <Link to={`/admin/users/${owner.id}`} className="button button--ghost">
          Cancel
        </Link>
      </DesignForm>
    </>
  )
}

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: cardDesignFormStylesHref }]

export const meta: MetaFunction = () => [{ title: 'Edit a card — Stampwise admin' }]
