import { type SubmissionResult } from '@conform-to/react'
import { type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useActionData, useLoaderData, type MetaFunction } from '@remix-run/react'
import { DesignForm } from '#app/components/card-design-form.tsx'
import { formReply } from '#app/server/form-reply.server.ts'
import { notFound } from '#app/server/http-errors.server.ts'
import { redirectWithToast } from '#app/server/toast.server.ts'
import { requireUserId } from '#app/services/auth/session.server.ts'
import { readCardEditForm } from '#app/services/cards/card-design-form.server.ts'
import { cardDesignView } from '#app/services/cards/card-design.server.ts'
import { editCard } from '#app/services/cards/card-edit.server.ts'
import { CARD_NOT_FOUND, requireOwnedCard } from '#app/services/cards/owned-card.server.ts'
import cardDesignFormStylesHref from '#app/styles/card-design-form.css?url'
import { type AccountHandle } from '#app/utils/account-handle.ts'
import { contrastWarning } from '#app/utils/contrast.ts'

export const handle: AccountHandle = { title: 'Edit card', back: 'previous' }

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: cardDesignFormStylesHref }]

/**
 * …/{cardId}/edit: a published card's design and reward on one page, in the account (issue 30: the card page's
 * 'Edit' used to reopen the onboarding wizard, step 1 of 7, for a card holders already carry). A draft is still
 * finished in the wizard; the card page links there. Saving goes back to the card page.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId, { view: 'design' })
  return {
    card: { id: card.id, title: card.title, status: card.status },
    design: await cardDesignView(userId, card),
    reward: { reward: card.reward, terms: card.terms },
  }
}

type EditActionData = { result: SubmissionResult<string[]> }

export async function action({ request, params }: ActionFunctionArgs) {
  const userId = await requireUserId(request)
  const card = await requireOwnedCard(userId, params.cardId, { view: 'design' })
  const form = await readCardEditForm(request)
  if ('reply' in form) return formReply<EditActionData>({ result: form.reply })

  const outcome = await editCard({ userId, cardId: card.id, values: form.values, logo: form.logo })
  if (outcome.status === 'not-found') throw notFound(CARD_NOT_FOUND)
  const saved = outcome.changed.length ? 'Card saved. Your holders’ cards show the change.' : 'Nothing changed.'
  // The form warns as the colours change; after the submit (and without JavaScript) the toast says it.
  const warning = contrastWarning(form.values.backgroundColor, form.values.textColor)
  return redirectWithToast(`/account/${card.id}`, { message: warning ? `${saved} ${warning}` : saved })
}

export default function EditCard() {
  const { card, design, reward } = useLoaderData<typeof loader>()
  const actionData = useActionData<EditActionData>()
  return (
    <>
      <h1>Edit “{card.title || 'Untitled card'}”</h1>
      <p className="lead">The design and the reward your holders see. Saving changes every holder’s card at once.</p>
      <DesignForm key={card.id} design={design} reward={reward} lastResult={actionData?.result} submitLabel="Save">
        <Link to={`/account/${card.id}`} className="button button--ghost">
          Cancel
        </Link>
      </DesignForm>
    </>
  )
}

export const meta: MetaFunction = () => [{ title: 'Edit card — Stampwise' }]
