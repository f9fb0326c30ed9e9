import { type ReactNode } from 'react'

/**
 * A wide table's own sideways scroll, so a 360 px phone scrolls the table and not the page. A scrolling region must
 * be reachable by keyboard (WCAG 2.1.1, axe's scrollable-region-focusable), hence the tab stop and a name for it.
 */
export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-scroll" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  )
}
