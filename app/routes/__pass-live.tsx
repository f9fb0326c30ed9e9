import { useRevalidator } from '@remix-run/react'
import { useEffect, useRef } from 'react'

/**
 * Keeps the open pass current (docs/decisions/050-open-pass-refresh.md): an event stream from /p/{passId}/live says
 * when the page's version moved (a stamp, an undo, a redemption, a design change, from any instance), and the loader
 * is asked again; so is it when the tab comes back to the foreground (a phone may have dropped the stream while
 * asleep). Without JavaScript the plain 'Refresh' link does the same. `fresh`: the page is not the service worker's
 * kept copy (useKeptCopy answered null).
 */
export function useLivePass(passId: string, version: string, fresh: boolean) {
  const revalidator = useRevalidator()
  // The revalidator changes identity with its state: a ref keeps the stream from reconnecting on every change.
  const revalidate = useRef(revalidator)
  useEffect(() => {
    revalidate.current = revalidator
  }, [revalidator])
  // The version the stream starts from is the one first shown; the stream itself follows later changes.
  const firstVersion = useRef(version)
  useEffect(() => {
    // The worker's kept copy is never asked again in place (it says it is a copy; a reload brings the live page),
    // and nothing is asked offline: a failed ask would replace the card with the error screen.
    const refresh = () => {
      if (fresh && navigator.onLine && revalidate.current.state === 'idle') revalidate.current.revalidate()
    }
    // Only a page known to be fresh opens a stream: not before the service worker said whether this is its kept
    // copy, and not offline (the attempt would only fail). Back online, the stream opens again and the page is
    // asked for what it missed.
    let source: EventSource | null = null
    const open = () => {
      if (!fresh || source || typeof EventSource === 'undefined' || !navigator.onLine) return
      source = new EventSource(`/p/${passId}/live?v=${encodeURIComponent(firstVersion.current)}`)
      source.addEventListener('change', refresh)
    }
    const close = () => {
      source?.close()
      source = null
    }
    const onOnline = () => {
      open()
      refresh()
    }
    const onVisibility = () => {
      if (document.visibilityState === 'visible') refresh()
    }
    open()
    window.addEventListener('online', onOnline)
    window.addEventListener('offline', close)
    document.addEventListener('visibilitychange', onVisibility)
    return () => {
      close()
      window.removeEventListener('online', onOnline)
      window.removeEventListener('offline', close)
      document.removeEventListener('visibilitychange', onVisibility)
    }
  }, [passId, fresh])
}

export function RefreshLink({ passId }: { passId: string }) {
  return (
    <a className="pass-page__refresh" href={`/p/${passId}`}>
      Refresh
    </a>
  )
}
