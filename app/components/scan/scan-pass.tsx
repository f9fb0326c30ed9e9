import { type SubmissionResult } from '@conform-to/react'
import { Form, Link } from '@remix-run/react'
import { useEffect, useState, type ReactNode } from 'react'
import { CardPreview, type CardDesign } from '#app/components/card-preview.tsx'
import { FormErrors } from '#app/components/forms.tsx'
import { IntentButton } from '#app/components/intent-button.tsx'
import { progressOf, progressWords, schemeOf } from '#app/services/cards/loyalty-scheme.ts'
import type { PassStampState } from '#app/types/stamping.ts'

/** The scan page's answer after an action: the pass, its stamps, and Undo / Redeem where they apply. */
export type ShownPass = Omit<PassStampState, 'undoUntil'> & { undoUntil: string | null } // as the answer's JSON carries it

type LastResult = SubmissionResult<string[]> | undefined

/** Shows Undo while the server's window is open; with JavaScript it also disappears when the window closes. */
function useUndoOpen(undoUntil: string | null) {
  const [open, setOpen] = useState(undoUntil !== null)
  useEffect(() => {
    if (!undoUntil) return setOpen(false)
    const left = new Date(undoUntil).getTime() - Date.now()
    if (left <= 0) return setOpen(false)
    const timer = setTimeout(() => setOpen(false), left)
    return () => clearTimeout(timer)
  }, [undoUntil])
  return open
}

function PassActionButton({
  intent,
  passId,
  locationId,
  pendingLabel,
  className,
  children,
}: {
  intent: 'undo' | 'redeem'
  passId: string
  /** Where it happens: the location this device uses (undo and redeem record it like a stamp). */
  locationId: string | null
  pendingLabel: string
  className: string
  children: ReactNode
}) {
  return (
    <Form method="POST" className="scan-pass__action">
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="passId" value={passId} />
      {locationId ? <input type="hidden" name="locationId" value={locationId} /> : null}
      <IntentButton intent={intent} pendingLabel={pendingLabel} className={className}>
        {children}
      </IntentButton>
    </Form>
  )
}

export function PassResult({
  card,
  pass,
  locationId,
  confirmRedeem,
  undoResult,
  redeemResult,
}: {
  card: CardDesign
  pass: ShownPass
  locationId: string | null
  confirmRedeem: boolean
  undoResult: LastResult
  redeemResult: LastResult
}) {
  const undoOpen = useUndoOpen(pass.undoUntil)
  const errors = [...(undoResult?.error?.[''] ?? []), ...(redeemResult?.error?.[''] ?? [])]
  return (
    <section className="panel scan-pass" aria-labelledby="scan-pass-title" data-pass-id={pass.passId}>
      <h2 id="scan-pass-title">
        Pass <span className="scan-pass__code">{pass.shortCode}</span>
      </h2>
      <CardPreview card={card} collected={pass.stamps} size="small" />
      <p className="scan-pass__progress" role="status">
        {progressWords(progressOf(schemeOf(pass), pass.stamps))}
      </p>
      <p className="scan-pass__rewards">
        Rewards redeemed: <strong>{pass.rewardsRedeemed}</strong>
      </p>
      <FormErrors id="scan-pass-errors" errors={errors.length ? errors : undefined} />
      {pass.rewardEarned ? (
        <div className="scan-pass__reward">
          <p className="scan-pass__earned">
            <strong>Reward earned</strong>
            {card.reward ? `: ${card.reward}` : null}
          </p>
          {/* A redemption cannot be undone: the button leads to a confirmation step (?confirm=redeem), the same page
              with and without JavaScript, and only its 'Yes, redeem' posts. */}
          {confirmRedeem ? null : (
            <Link to={`?pass=${pass.passId}&confirm=redeem`} className="button" preventScrollReset>
              Redeem reward
            </Link>
          )}
        </div>
      ) : null}
      {pass.rewardEarned && confirmRedeem ? (
        <RedeemConfirmation card={card} pass={pass} locationId={locationId} />
      ) : null}
      {undoOpen && pass.undoUntil ? (
        <div className="scan-pass__undo">
          <PassActionButton
            intent="undo"
            passId={pass.passId}
            locationId={locationId}
            pendingLabel="Undoing…"
            className="button button--ghost"
          >
            Undo
          </PassActionButton>
          <span className="field-hint">A stamp can be undone for 2 minutes.</span>
        </div>
      ) : null}
    </section>
  )
}

function RedeemConfirmation({
  card,
  pass,
  locationId,
}: {
  card: CardDesign
  pass: ShownPass
  locationId: string | null
}) {
  return (
    <div className="scan-pass__confirm" role="group" aria-labelledby="redeem-confirm-title">
      <h3 id="redeem-confirm-title">Redeem the reward?</h3>
      <p>
        Give {card.reward ? <strong>{card.reward}</strong> : 'the reward'} to the holder of {pass.shortCode} now. Their
        card starts a new round at 0 stamps; this cannot be undone.
      </p>
      <div className="scan-pass__confirm-actions">
        <PassActionButton
          intent="redeem"
          passId={pass.passId}
          locationId={locationId}
          pendingLabel="Redeeming…"
          className="button"
        >
          Yes, redeem
        </PassActionButton>
        <Link to={`?pass=${pass.passId}`} className="button button--ghost" preventScrollReset>
          Cancel
        </Link>
      </div>
    </div>
  )
}
