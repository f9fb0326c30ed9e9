import { axeFindings, blockingViolations } from '#tests/support/axe.ts'
import { buildPageAddresses } from '#tests/support/build-pages.ts'
import { createPageRecords, type PageRecords } from '#tests/support/page-records.ts'
import { DESKTOP_WIDTH, PHONE_WIDTHS, widthsNotFitting } from '#tests/support/page-width.ts'
import { expect, expectPageError, failedLoad, test as base } from '#tests/support/test.ts'
import { PAGES, type PageRow } from './accessibility-pages.ts'

/*
 * Issue #8, accessibility: axe-core on every page of the app (guest, owner, holder, admin), with JavaScript and
 * without (the two projects). Every rule axe has runs — WCAG 2.0/2.1/2.2 A and AA and its best practices — and a
 * serious or critical violation fails the page. The list of pages is accessibility-pages.ts, checked against the
 * build so a new page cannot be left out.
 *
 * Issue #14, phones: the same page loads serve the phone walk (loading every page again would double the run), so
 * each page, once checked, is laid out again at 360 and 390 px and back at 1280 px, and must fit each width.
 */
const test = base.extend<object, { records: PageRecords }>({
  records: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use, workerInfo) => use(await createPageRecords(String(workerInfo.project.use.baseURL))),
    { scope: 'worker', timeout: 60_000 },
  ],
})

test('the page list names every page of the build, and only those', async () => {
  const built = await buildPageAddresses()
  const listed = new Set(PAGES.map((row) => row.route))
  expect({
    unlisted: [...built]
      .filter(([address]) => !listed.has(address))
      .map(([address, ids]) => `${address} (${ids.join(', ')})`),
    notBuilt: [...listed].filter((address) => !built.has(address)),
  }).toEqual({ unlisted: [], notBuilt: [] })
})

const title = (row: PageRow) => `${row.route}${row.state ? ` (${row.state})` : ''} as ${row.as}`

for (const row of PAGES) {
  test(`${title(row)}: no serious or critical axe violations, no sideways scroll at 360, 390 and 1280 px`, async ({
    page,
    context,
    records,
  }, testInfo) => {
    // axe, every field's label and three layouts on one page load: on a busy machine that outlasts 30 s.
    test.slow()
    if (row.as === 'owner') await context.addCookies(records.ownerCookies)
    if (row.as === 'admin') await context.addCookies(records.adminCookies)
    if (row.as === 'staff') await context.addCookies(records.staffCookies)
    const address = row.path(records)
    // A page shown with an error status on purpose (404, 403, 400): the browser logs its load as failed.
    if (row.status) expectPageError(failedLoad(row.status, new URL(address, 'http://localhost').pathname))
    const load = () => page.goto(address)
    const response = await (row.during ? row.during(load) : load())
    expect(response?.status(), `GET ${address}`).toBe(row.status ?? 200)
    // The page itself was checked, not a page it redirected to.
    expect(new URL(page.url()).pathname).toBe(new URL(address, page.url()).pathname)

    const results = await axeFindings(page, testInfo.project.use.javaScriptEnabled !== false)
    // Minor and moderate findings are kept with the run for reading, not failed on.
    await testInfo.attach('axe-violations.json', {
      body: JSON.stringify(results.violations, null, 2),
      contentType: 'application/json',
    })
    expect(blockingViolations(results), `axe on ${address}`).toEqual([])

    // axe's label rules, asked directly. Every field has a label with words (also those axe skips because they
    // are hidden now: in a closed <details>, or the aria-hidden honeypot), and every one on show a name a screen
    // reader reads out.
    // (Read in one call for all fields: one call each cost a round trip per field.)
    const fields = page.locator('input:not([type="hidden"]), select, textarea')
    const read = await fields.evaluateAll((elements: HTMLInputElement[]) =>
      elements.map((element) => ({
        html: element.outerHTML.slice(0, 160),
        ariaHidden: element.closest('[aria-hidden="true"]') !== null,
        labelled:
          [...(element.labels ?? [])].some((label) => label.textContent?.trim()) ||
          Boolean(element.getAttribute('aria-label')?.trim() || element.getAttribute('aria-labelledby')?.trim()),
      })),
    )
    for (const [index, { html, labelled, ariaHidden }] of read.entries()) {
      expect(labelled, `a label for ${html}`).toBe(true)
      const field = fields.nth(index)
      if (!ariaHidden && (await field.isVisible()))
        await expect(field, `an accessible name for ${html}`).toHaveAccessibleName(/\S/)
    }

    // Nothing wider than the screen: the document does not scroll sideways, and no element reaches past the right edge.
    expect(
      await widthsNotFitting(page, [...PHONE_WIDTHS, DESKTOP_WIDTH]),
      `${address} at phone and desktop widths`,
    ).toEqual([])
  })
}
