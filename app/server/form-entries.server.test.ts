import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { FORM_ENTRIES_MAX, FORM_ENTRY_MESSAGES, formAddress, formEntryCheck } from './form-entries.server.ts'
import {
  multipartBoundary,
  multipartEntries,
  urlencodedEntries,
  type BodyCheck,
  type EntryTally,
} from './form-entry-scan.server.ts'

const FORM = 'application/x-www-form-urlencoded'

/** Feeds `body` in pieces cut at `cuts` (positions), as a socket would hand it over. */
function pieces(body: Buffer, cuts: number[] = []) {
  const at = [...new Set(cuts.map((cut) => cut % (body.length + 1)))].sort((a, b) => a - b)
  return [0, ...at].map((start, index) => body.subarray(start, at[index] ?? body.length))
}

/** The names a scanner reports, in order, when fed `body` in `parts`. */
function scannedNames(make: (tally: EntryTally) => BodyCheck, parts: Buffer[]) {
  const names: string[] = []
  let entries = 0
  const check = make({ entry: () => (entries++, null), name: (name) => (names.push(name), null) })
  for (const part of parts) expect(check.write(part)).toBeNull()
  expect(check.end()).toBeNull()
  return { names, entries }
}

/** Runs the check of `path` over `body`; the refusal's message, or null. */
function judge(body: string | Buffer, { path = '/login', contentType = FORM } = {}) {
  const check = formEntryCheck(contentType, path)!
  for (const part of pieces(Buffer.from(body), [7, 4096, 65536])) {
    const refusal = check.write(part)
    if (refusal) return refusal.message
  }
  return check.end()?.message ?? null
}

describe('urlencoded forms', () => {
  test('entries and names are those URLSearchParams reads, however the body is cut', () => {
    const text = fc.string({
      unit: fc.constantFrom('a', 'b', 'é', '=', '&', '+', '%', '2', '6', 'F', ' '),
      maxLength: 60,
    })
    fc.assert(
      fc.property(text, fc.array(fc.nat(80)), (body, cuts) => {
        const expected = [...new URLSearchParams(body).keys()]
        const { names, entries } = scannedNames(urlencodedEntries, pieces(Buffer.from(body), cuts))
        expect(names).toEqual(expected)
        expect(entries).toBe(expected.length)
      }),
      { numRuns: 500 },
    )
  })

  test(`at most ${FORM_ENTRIES_MAX} entries, and a name only once unless its form repeats it`, () => {
    const distinct = (count: number) => Array.from({ length: count }, (_, index) => `field${index}=x`).join('&')
    expect(judge(distinct(FORM_ENTRIES_MAX))).toBeNull()
    expect(judge(distinct(FORM_ENTRIES_MAX + 1))).toBe(FORM_ENTRY_MESSAGES.tooMany)
    expect(judge('email=a&email=b')).toBe(FORM_ENTRY_MESSAGES.repeated('email'))
    // Empty runs are no entries (URLSearchParams skips them); an encoded name is the same name.
    expect(judge('&&&&email=a&&&')).toBeNull()
    expect(judge('email=a&%65mail=b')).toBe(FORM_ENTRY_MESSAGES.repeated('email'))

    const staff = (count: number) => Array.from({ length: count }, (_, index) => `staffIds=${index}`).join('&')
    expect(judge(`name=Baixa&${staff(100)}`, { path: '/account/locations' })).toBeNull()
    expect(judge(`name=Baixa&${staff(100)}`, { path: '/account/locations.data' })).toBeNull()
    expect(judge(`name=Baixa&${staff(101)}`, { path: '/account/locations' })).toBe(
      FORM_ENTRY_MESSAGES.repeated('staffIds'),
    )
    expect(judge(staff(2), { path: '/login' })).toBe(FORM_ENTRY_MESSAGES.repeated('staffIds'))
    expect(judge('name=a&name=b', { path: '/account/locations' })).toBe(FORM_ENTRY_MESSAGES.repeated('name'))

    // A card's form: its address carries the card's id.
    const asked = 'fields=name&fields=email&fields=phone&fields=birthday'
    const card = '/account/6f1c2a4e-0000-4000-8000-000000000001/holder-details'
    expect(judge(asked, { path: card })).toBeNull()
    expect(judge(asked, { path: `${card}.data` })).toBeNull()
    expect(judge(`${asked}&fields=name`, { path: card })).toBe(FORM_ENTRY_MESSAGES.repeated('fields'))
    expect(judge(asked, { path: '/account/x/y/holder-details' })).toBe(FORM_ENTRY_MESSAGES.repeated('fields'))
  })

  test('a body that is no form is not judged', () => {
    expect(formEntryCheck('application/json', '/login')).toBeNull()
    expect(formEntryCheck(undefined, '/login')).toBeNull()
  })
})

describe('multipart forms', () => {
  async function encoded(entries: [string, string | Blob][]) {
    const form = new FormData()
    for (const [name, value] of entries) form.append(name, value)
    const response = new Response(form)
    return { body: Buffer.from(await response.arrayBuffer()), contentType: response.headers.get('Content-Type')! }
  }

  test('the names are the parts’ names, however the body is cut; the entries at least as many', async () => {
    const { body, contentType } = await encoded([
      ['intent', 'logo'],
      ['empty', ''],
      ['logo', new Blob([Buffer.alloc(3000, 7)], { type: 'image/png' })],
      ['message', 'two\r\n--lines'],
      ['café', 'x'],
    ])
    for (const cuts of [[], [1], [2, 3, 4, 5, 6, 7, 8, 9, 10], Array.from({ length: body.length }, (_, i) => i)]) {
      const { names, entries } = scannedNames((tally) => multipartEntries(contentType, tally), pieces(body, cuts))
      expect(names).toEqual(['intent', 'empty', 'logo', 'message', 'café'])
      // The message's own CRLF-- counts too: an upper bound, never fewer than the parts.
      expect(entries).toBe(6)
    }
  })

  test(`at most ${FORM_ENTRIES_MAX} parts, and a name only once`, async () => {
    const many = await encoded(
      Array.from({ length: FORM_ENTRIES_MAX + 1 }, (_, i) => [`f${i}`, 'x'] as [string, string]),
    )
    expect(judge(many.body, { contentType: many.contentType })).toBe(FORM_ENTRY_MESSAGES.tooMany)
    const enough = await encoded(Array.from({ length: FORM_ENTRIES_MAX }, (_, i) => [`f${i}`, 'x'] as [string, string]))
    expect(judge(enough.body, { contentType: enough.contentType })).toBeNull()
    const twice = await encoded([
      ['email', 'a'],
      ['email', 'b'],
    ])
    expect(judge(twice.body, { contentType: twice.contentType })).toBe(FORM_ENTRY_MESSAGES.repeated('email'))
    // Whatever boundary the header names (or none), the parts are counted.
    expect(judge(many.body, { contentType: 'multipart/form-data; boundary=something-else' })).toBe(
      FORM_ENTRY_MESSAGES.tooMany,
    )
    expect(judge(many.body, { contentType: 'multipart/form-data' })).toBe(FORM_ENTRY_MESSAGES.tooMany)
  })

  test('the boundary is read as the WHATWG MIME type parser reads it', () => {
    expect(multipartBoundary('multipart/form-data; boundary=abc')).toBe('abc')
    expect(multipartBoundary('multipart/form-data; charset=utf-8; BOUNDARY="a;b \\"c"; boundary=x')).toBe('a;b "c')
    expect(multipartBoundary('multipart/form-data')).toBeNull()
  })
})

test('the address of a Remix data request is its page’s', () => {
  expect(formAddress('/account/locations.data')).toBe('/account/locations')
  expect(formAddress('/account/locations/')).toBe('/account/locations')
  expect(formAddress('/_root.data')).toBe('/')
})

/** The fastest of a few runs of scanning `body` whole, in milliseconds. */
function scanMs(body: Buffer, contentType: string) {
  let best = Infinity
  for (let round = 0; round < 5; round++) {
    const started = performance.now()
    const check = multipartOrForm(contentType)
    for (const part of pieces(
      body,
      Array.from({ length: Math.ceil(body.length / 65536) }, (_, i) => i * 65536),
    ))
      check.write(part)
    check.end()
    best = Math.min(best, performance.now() - started)
  }
  return best
}
// A tally that never refuses, so the whole body is scanned: the scan alone is timed.
const multipartOrForm = (contentType: string) =>
  contentType.startsWith('multipart')
    ? multipartEntries(contentType, { entry: () => null, name: () => null })
    : urlencodedEntries({ entry: () => null, name: () => null })

describe('scanning is linear in the body', () => {
  test.for([
    ['one name repeated (a&a&…)', (count: number) => Buffer.from('a&'.repeat(count)), FORM],
    ['one long name', (count: number) => Buffer.from('n'.repeat(count * 2) + '=1'), FORM],
    [
      'many parts of one name',
      (count: number) =>
        Buffer.from(`--b\r\nContent-Disposition: form-data; name="a"\r\n\r\n\r\n`.repeat(count / 25) + '--b--\r\n'),
      'multipart/form-data; boundary=b',
    ],
  ] as const)('%s: 10× the body takes at most ~10× the time', ([, body, contentType]) => {
    const small = scanMs(body(50_000), contentType)
    const large = scanMs(body(500_000), contentType)
    // Quadratic would be 100×; a generous bound for a shared machine.
    const timing = `${small.toFixed(2)} ms, then ${large.toFixed(2)} ms`
    expect(large, timing).toBeLessThan(Math.max(small, 1) * 30)
    // And fast: a 1 MB body in well under a second.
    expect(large).toBeLessThan(500)
  })
})
