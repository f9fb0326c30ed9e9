import fs from 'node:fs'
import { createRequire } from 'node:module'
import AxeBuilder from '@axe-core/playwright'
import { expect, type Browser, type BrowserContext, type Page } from '@playwright/test'

// axe-core's minified build, the one @axe-core/playwright loads (resolved from there): the same code as the readable
// axe.js it injects by default, in 0.65 MB instead of 1.5 MB, which every page parses again.
const AXE_SOURCE = fs.readFileSync(
  createRequire(createRequire(import.meta.url).resolve('@axe-core/playwright')).resolve('axe-core/axe.min.js'),
  'utf8',
)

/**
 * Every rule of axe on the page, run and finished in the page itself (AxeBuilder's legacy mode). Its default mode
 * finishes the run in a blank page it opens for each call and injects axe into a second time: about half of
 * the page walk's axe time (measured: 1.5 s → 0.6 s a page), bought for one thing only, checking frames from
 * another origin, which legacy mode leaves out. The app has no such frames; a page that gets one fails here
 * rather than being checked less.
 */
async function analyze(page: Page) {
  const origin = new URL(page.url()).origin
  const foreign = page
    .frames()
    .map((frame) => frame.url())
    .filter((url) => !url.startsWith('about:') && new URL(url).origin !== origin)
  expect(foreign, `frames from another origin on ${page.url()} (axe's legacy mode does not check them)`).toEqual([])
  return new AxeBuilder({ page, axeSource: AXE_SOURCE }).setLegacyMode(true).analyze()
}

/**
 * axe-core's findings on the page as it stands.
 *
 * axe runs as a script in the page and waits on timers, which never fire in a context without JavaScript (its
 * analysis would wait forever). So without JavaScript, the page's DOM — the server's HTML as the visitor without
 * JavaScript got it — is copied into a page with JavaScript for axe alone: the same address, cookies and stylesheets,
 * with every script of the app removed (none may run, or the copy would become the JavaScript page), its module
 * preloads too (scripts that never run: nothing for axe, and each one a request through the route below), and
 * <noscript> content unwrapped, since that is what this visitor sees.
 */
export async function axeFindings(page: Page, javaScriptEnabled: boolean) {
  if (javaScriptEnabled) return analyze(page)
  const url = page.url()
  const html = (await page.content())
    .replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, '')
    .replace(/<link\b[^>]*\brel="modulepreload"[^>]*>/gi, '')
    .replace(/<\/?noscript>/gi, '')
  const context = await copyContext(page.context().browser()!)
  await context.clearCookies()
  await context.addCookies(await page.context().cookies())
  const copy = await context.newPage()
  try {
    const viewport = page.viewportSize()
    if (viewport) await copy.setViewportSize(viewport)
    await copy.route('**/*', (route) => {
      const request = route.request()
      if (request.isNavigationRequest() && request.url() === url)
        return route.fulfill({ status: 200, contentType: 'text/html', body: html })
      // An empty script, not an aborted load, should the page still ask for one (tests/support/test.ts fails a
      // page on a failed load).
      if (request.resourceType() === 'script')
        return route.fulfill({ status: 200, contentType: 'text/javascript', body: '' })
      return route.continue()
    })
    await copy.goto(url)
    return await analyze(copy)
  } finally {
    await copy.close()
  }
}

/**
 * One context with JavaScript per browser (a worker's) for the copies: a new context for each page cost more than
 * the copy itself. Each copy starts from the original's cookies alone, and closes with its page; the context goes
 * with the browser.
 */
const copyContexts = new WeakMap<Browser, Promise<BrowserContext>>()
function copyContext(browser: Browser) {
  let context = copyContexts.get(browser)
  if (!context) {
    context = browser.newContext({ javaScriptEnabled: true })
    copyContexts.set(browser, context)
  }
  return context
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
