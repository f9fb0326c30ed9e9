import { type Page } from '@playwright/test'

/** The screen widths every page must fit without sideways scrolling: two phones, and a desktop. */
export const PHONE_WIDTHS = [360, 390] as const
export const DESKTOP_WIDTH = 1280

export type WidthFinding = {
  width: number
  scrollWidth: number
  clientWidth: number
  /** The outermost elements whose box passes the viewport's right edge (at most ten), as `tag.class "text"`. */
  beyondRightEdge: string[]
}

/**
 * How the page as it stands lays out at `width` px: the document's scroll width against the viewport's, and the
 * elements that reach past the right edge. An element inside a box that clips or scrolls sideways (a table's
 * scroll wrapper, say) is left out when that box itself fits: the page does not scroll, the box does. (An absolute
 * element whose containing block lies outside that box escapes its clipping: the scroll width still catches it.)
 * Only the layout is read, so it works with JavaScript turned off (Playwright's evaluate is not the page's script).
 */
export async function measureWidth(page: Page, width: number): Promise<WidthFinding> {
  const height = page.viewportSize()?.height ?? 800
  await page.setViewportSize({ width, height })
  const measured = await page.evaluate(() => {
    const root = document.documentElement
    const edge = root.clientWidth + 1
    const clippedInside = (element: Element) => {
      for (let parent = element.parentElement; parent && parent !== root; parent = parent.parentElement) {
        if (getComputedStyle(parent).overflowX !== 'visible') return parent.getBoundingClientRect().right <= edge
      }
      return false
    }
    const beyond = new Set<Element>()
    for (const element of document.body.querySelectorAll('*')) {
      const rect = element.getBoundingClientRect()
      if (rect.width === 0 || rect.height === 0 || rect.right <= edge) continue
      // Not drawn: hidden, or inside a closed <details> (Chromium keeps a box for its content but does not paint it).
      if (!element.checkVisibility({ visibilityProperty: true }) || clippedInside(element)) continue
      beyond.add(element)
    }
    const describe = (element: Element) => {
      const classes = [...element.classList].map((name) => `.${name}`).join('')
      const text = (element.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 40)
      const right = Math.round(element.getBoundingClientRect().right)
      return `${element.tagName.toLowerCase()}${classes}${text ? ` "${text}"` : ''} (right edge ${right} px)`
    }
    return {
      scrollWidth: root.scrollWidth,
      clientWidth: root.clientWidth,
      // Only the outermost: a too-wide box's children say nothing new.
      beyondRightEdge: [...beyond]
        .filter((element) => !element.parentElement || !beyond.has(element.parentElement))
        .slice(0, 10)
        .map(describe),
    }
  })
  return { width, ...measured }
}

/** The page at each width, as findings for the ones it does not fit (none when it fits them all). */
export async function widthsNotFitting(page: Page, widths: readonly number[]): Promise<WidthFinding[]> {
  const findings: WidthFinding[] = []
  for (const width of widths) {
    const finding = await measureWidth(page, width)
    if (finding.scrollWidth > finding.clientWidth || finding.beyondRightEdge.length) findings.push(finding)
  }
  return findings
}
