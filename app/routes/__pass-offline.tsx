import { useEffect, useState } from 'react'

/**
 * Whether this page is the copy the pass's service worker kept (public/pass-sw.js answers a navigation from its
 * cache when the network fails). The worker is asked after hydration, so the server's HTML and React's first render
 * stay the same (docs/decisions/027-holder-pass-page-ownership.md).
 * undefined: not known yet; null: a fresh page (or no worker); else the copy, with when it was saved.
 */
export type KeptCopy = { savedAt: Date | null } | null

const ANSWER_WAIT_MS = 1_000

export function useKeptCopy(): KeptCopy | undefined {
  const [copy, setCopy] = useState<KeptCopy | undefined>(undefined)
  useEffect(() => {
    const controller = typeof navigator !== 'undefined' ? navigator.serviceWorker?.controller : null
    if (!controller) {
      setCopy(null)
      return
    }
    const channel = new MessageChannel()
    // A worker from before this page's version does not answer: then the page is taken as fresh.
    const timer = window.setTimeout(() => setCopy((known) => (known === undefined ? null : known)), ANSWER_WAIT_MS)
    channel.port1.onmessage = ({ data }: MessageEvent<{ offline?: boolean; savedAt?: string | null }>) => {
      window.clearTimeout(timer)
      setCopy(data?.offline ? { savedAt: data.savedAt ? new Date(data.savedAt) : null } : null)
    }
    controller.postMessage({ type: 'page-source' }, [channel.port2])
    return () => {
      window.clearTimeout(timer)
      channel.port1.close()
    }
  }, [])
  return copy
}

/** 'Offline: last updated {time}', in the holder's own language and time zone; nothing on a fresh page. */
export function OfflineNote({ copy }: { copy: KeptCopy | undefined }) {
  if (!copy) return null
  const time =
    copy.savedAt && !Number.isNaN(copy.savedAt.getTime())
      ? new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(copy.savedAt)
      : 'on an earlier visit'
  return (
    <p className="pass-page__offline" role="status">
      {`Offline: last updated ${time}`}
    </p>
  )
}
