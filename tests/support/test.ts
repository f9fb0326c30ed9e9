import { test as base, type Browser, type BrowserContext, type ConsoleMessage } from '@playwright/test'

/**
 * `test` and `expect` for every browser test: a test fails when any page it opened threw an uncaught error
 * ('pageerror', React's hydration errors among them) or logged a console error, listed after the test ends. A test
 * that provokes an error on purpose names it with `pageErrors.expect(...)`; nothing is ignored wholesale.
 */
export * from '@playwright/test'

/** One error a test expects: a name for the report, and what it matches. */
export type ExpectedError = { name: string; matches: (error: PageError) => boolean }
export type PageError = { kind: 'pageerror' | 'console'; text: string; url: string }

/**
 * The browser's own log line for a resource it loaded with an error status, e.g. a deliberately missing page or a
 * form refused with 400: "Failed to load resource: the server responded with a status of 404 (Not Found)" at that
 * address, or at its Remix data address (`/account/profile.data`, what a form posts to with JavaScript).
 */
export function failedLoad(status: number, pathname: string | RegExp): ExpectedError {
  return {
    name: `${status} for ${String(pathname)}`,
    matches: ({ kind, text, url }) => {
      if (
        kind !== 'console' ||
        !text.startsWith(`Failed to load resource: the server responded with a status of ${status} `)
      )
        return false
      const path = url ? new URL(url).pathname : ''
      const page = path.replace(/\.data$/, '')
      return typeof pathname === 'string' ? page === pathname : pathname.test(page)
    },
  }
}

/** The browser's log line for a request that failed without an answer at that address (e.g. fetched while offline). */
export function failedWithoutAnswer(pathname: string): ExpectedError {
  return {
    name: `no answer for ${pathname}`,
    matches: ({ kind, text, url }) =>
      kind === 'console' &&
      text.startsWith('Failed to load resource: net::') &&
      Boolean(url) &&
      new URL(url).pathname === pathname,
  }
}

type PageErrors = {
  /** Declares an error the test provokes on purpose; it may occur any number of times. */
  expect: (expected: ExpectedError) => void
}

// The running test's expected errors (a worker runs one test at a time).
let expectedNow: ExpectedError[] | undefined

/** Declares an error the running test provokes on purpose, e.g. `expectPageError(failedLoad(400, '/login'))`. */
export function expectPageError(expected: ExpectedError) {
  if (!expectedNow) throw new Error('expectPageError must be called inside a test')
  expectedNow.push(expected)
}

const describe = (error: PageError) => `${error.kind}: ${error.text}${error.url ? ` (${error.url})` : ''}`

export const test = base.extend<{ pageErrors: PageErrors }>({
  pageErrors: [
    async ({ browser }, use) => {
      const seen: PageError[] = []
      const expected: ExpectedError[] = []
      const watched = new WeakSet<BrowserContext>()
      const watch = (context: BrowserContext) => {
        if (watched.has(context)) return
        watched.add(context)
        context.on('weberror', (error) =>
          seen.push({
            kind: 'pageerror',
            text: String(error.error().stack ?? error.error()),
            url: error.page()?.url() ?? '',
          }),
        )
        context.on('console', (message: ConsoleMessage) => {
          if (message.type() === 'error')
            seen.push({ kind: 'console', text: message.text(), url: message.location().url })
        })
      }
      // Every context the test opens, its own browsers included (a test may launch one with a fake camera): the
      // default context is made through the same newContext, before or after this fixture.
      const prototype = Object.getPrototypeOf(browser) as Browser
      const newContext = prototype.newContext
      prototype.newContext = async function (this: Browser, ...args: Parameters<Browser['newContext']>) {
        const context = await newContext.apply(this, args)
        watch(context)
        return context
      }
      for (const context of browser.contexts()) watch(context)
      expectedNow = expected
      try {
        await use({ expect: expectPageError })
      } finally {
        prototype.newContext = newContext
        expectedNow = undefined
      }
      const unexpected = seen.filter((error) => !expected.some((allowed) => allowed.matches(error)))
      if (unexpected.length) {
        throw new Error(
          `the pages logged ${unexpected.length} unexpected error(s):\n${unexpected.map(describe).join('\n')}`,
        )
      }
    },
    { auto: true },
  ],
})
