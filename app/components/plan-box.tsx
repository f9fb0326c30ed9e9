import { Link, useRevalidator } from '@remix-run/react'
import { useEffect, useRef } from 'react'

const REFRESH_AFTER_MS = 30_000

/**
 * The header's plan status box (specification section 4): two lines and 'View plans'. With JavaScript it refreshes
 * when the owner comes back to the tab (an admin may have confirmed a payment meanwhile) and reads 'Loading...'
 * while it does.
 */
export function PlanBox({ title, subtitle }: { title: string; subtitle: string }) {
  const revalidator = useRevalidator()
  // When the page was last brought up to date: set once mounted (reading the clock while rendering is impure).
  const lastRefresh = useRef(0)
  useEffect(() => {
    if (lastRefresh.current === 0) lastRefresh.current = Date.now()
    const refresh = () => {
      if (document.visibilityState !== 'visible' || Date.now() - lastRefresh.current < REFRESH_AFTER_MS) return
      lastRefresh.current = Date.now()
      revalidator.revalidate()
    }
    document.addEventListener('visibilitychange', refresh)
    return () => document.removeEventListener('visibilitychange', refresh)
  }, [revalidator])
  const loading = revalidator.state === 'loading'
  return (
    <div className="plan-box" aria-live="polite" aria-busy={loading}>
      <p className="plan-box__text">
        {loading ? (
          <span className="plan-box__title">Loading...</span>
        ) : (
          <>
            <span className="plan-box__title">{title}</span>
            <span className="plan-box__subtitle">{subtitle}</span>
          </>
        )}
      </p>
      <Link to="/account/tariffs" className="button button--small">
        View plans
      </Link>
    </div>
  )
}
