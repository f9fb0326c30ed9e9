import AxeBuilder from '@axe-core/playwright'
import { type Page } from '@playwright/test'

/**
 * axe-core's findings on the page as it stands.
 *
 * axe runs as a script in the page and waits on timers, which never fire in a context without JavaScript (its
 * analysis would wait forever). So without JavaScript, the page's DOM — the server's HTML as the visitor without
 * JavaScript got it — is copied into a page with JavaScript for axe alone: the same address, cookies and stylesheets,
 * with every
 * script of the app removed (none may run, or the copy would become the JavaScript page) and <noscript> content
 * unwrapped, since that is what this visitor sees.
 */
export async function axeFindings(page: Page, javaScriptEnabled: boolean) {
  if (javaScriptEnabled) return new AxeBuilder({ page }).analyze()
  const url = page.url()
  const html = (await page.content()).replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, '').replace(/<\/?noscript>/gi, '')
  const context = await page.context().browser()!.newContext({ javaScriptEnabled: true, viewport: page.viewportSize() })
  try {
    await context.addCookies(await page.context().cookies())
    const copy = await context.newPage()
    await copy.route('**/*', (route) => {
      const request = route.request()
      if (request.isNavigationRequest() && request.url() === url)
        return route.fulfill({ status: 200, contentType: 'text/html', body: html })
      // An empty script, not an aborted load: the module preloads would log an error (tests/support/test.ts).
      if (request.resourceType() === 'script')
        return route.fulfill({ status: 200, contentType: 'text/javascript', body: '' })
      return route.continue()
    })
    await copy.goto(url)
    return await new AxeBuilder({ page: copy }).analyze()
  } finally {
    await context.close()
  }
}

/** The serious and critical violations, one line per element, for a readable failure. */
export function blockingViolations(results: Awaited<ReturnType<typeof axeFindings>>) {
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      rule: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map(
        (node) => `${node.target.join(' ')} — ${node.failureSummary?.split('\n').slice(1).join(' ')}`,
      ),
    }))
}
