import { useRevalidator } from '@remix-run/react'
import { useEffect } from 'react'

/**
 * Keeps the open pass current without a query per open pass per second: when the tab comes back to the foreground
 * the loader is asked again (the render cache answers it unless the pass's version moved). Without JavaScript the
 * plain 'Refresh' link does the same (docs/decisions/050-open-pass-refresh.md).
 */
export function useRefreshOnReturn() {
  const revalidator = useRevalidator()
  useEffect(() => {
    function onVisibility() {
      if (document.visibilityState === 'visible' && revalidator.state === 'idle') revalidator.revalidate()
    }
    document.addEventListener('visibilitychange', onVisibility)
    return () => document.removeEventListener('visibilitychange', onVisibility)
  }, [revalidator])
}

export function RefreshLink({ passId }: { passId: string }) {
  return (
    <a className="pass-page__refresh" href={`/p/${passId}`}>
      Refresh
    </a>
  )
}
