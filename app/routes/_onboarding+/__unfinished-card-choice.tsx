import { Form, Link } from '@remix-run/react'
import { type ReactNode } from 'react'
import { CardPreview } from '#app/components/card-preview.tsx'
import { CardLimitNotice } from './__card-limit-notice.tsx'
import type { UnfinishedCardChoice } from './__unfinished-card.server.ts'

/**
 * Asked when 'Create a card' finds an earlier card whose setup is unfinished: continue it, or start a new one. A
 * link and a plain form, so it works without JavaScript; the form says what happens to the earlier card.
 */
export function UnfinishedCardChoicePage({
  choice,
  limit,
  error,
}: {
  choice: UnfinishedCardChoice
  limit?: { message: string; ended: boolean }
  error?: ReactNode
}) {
  const { card, design, continuePath, startNew } = choice
  const refusal = limit ?? (startNew.allowed ? null : startNew)
  return (
    <>
      <h1>Continue your card or start a new one?</h1>
      <p className="lead">
        {`You have not finished setting up “${card.title}”. `}
        {card.isDraft ? 'It has no reward yet, so customers cannot join it.' : 'Customers can already join it.'}
      </p>
      {error}
      <CardPreview card={design} size="small" />
      <div className="onboarding-actions">
        <Link to={continuePath} className="button">
          Continue “{card.title}”
        </Link>
        {startNew.allowed && !limit ? (
          <Form method="POST" action="/main">
            <input type="hidden" name="intent" value="start-new" />
            <input type="hidden" name="cardId" value={card.id} />
            <button type="submit" className="button button--ghost">
              {startNew.discardsDraft ? 'Delete the draft and start a new card' : 'Start a new card'}
            </button>
          </Form>
        ) : null}
      </div>
      {refusal ? (
        <CardLimitNotice message={refusal.message} ended={refusal.ended} inline />
      ) : (
        <p className="field-hint">
          {startNew.allowed && startNew.discardsDraft
            ? `Starting a new card deletes the unfinished draft “${card.title}”.`
            : `Starting a new card keeps “${card.title}” in your cards, ready to use.`}
        </p>
      )}
    </>
  )
}
