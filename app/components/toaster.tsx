import { useEffect, useState } from 'react'

export type ToastView = { id: string; message: string; type: 'success' | 'error' | 'info'; durationMs: number }

/**
 * Shows a toast: rendered on the server too (so it appears without JavaScript), dismissed by a click, and gone
 * after its duration (4000 ms by default, 3000 ms for the resend message) once scripts run.
 */
export function Toaster({ toast }: { toast: ToastView | null | undefined }) {
  const [visible, setVisible] = useState<ToastView | null>(toast ?? null)
  useEffect(() => setVisible(toast ?? null), [toast])
  useEffect(() => {
    if (!visible) return
    const timer = window.setTimeout(() => setVisible(null), visible.durationMs)
    return () => window.clearTimeout(timer)
  }, [visible])
  if (!visible) return null
  return (
    <div className="toaster" aria-live="polite">
      <button
        type="button"
        className={`toast toast--${visible.type}`}
        role={visible.type === 'error' ? 'alert' : 'status'}
        onClick={() => setVisible(null)}
        title="Dismiss"
      >
        {visible.message}
      </button>
    </div>
  )
}
