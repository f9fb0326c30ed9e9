import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { ownPathOrNull } from './safe-redirect.server.ts'

const APP = 'https://app.stampwise.example'

describe('redirectTo is followed only to our own pages', () => {
  test.for([
    ['/account', '/account'],
    ['/account/card-1/scan?tab=2#top', '/account/card-1/scan?tab=2#top'],
    ['/account/../main', '/main'],
    ['account', '/account'],
    [`${APP}/account/profile`, '/account/profile'],
    ['/%2F%2Fevil.example', '/%2F%2Fevil.example'],
  ])('%s → %s', ([to, path]) => {
    expect(ownPathOrNull(to, APP)).toBe(path)
  })

  test.for([
    // The outside review's value: browsers drop the tab and follow //evil.example.
    '/\t/evil.example',
    '/\n/evil.example',
    '/\r/evil.example',
    '\t//evil.example',
    '/\u0000/evil.example',
    '/\u007f/evil.example',
    '/\u0085/evil.example',
    '/ /evil.example',
    '/\u00a0/evil.example',
    '/\u2028/evil.example',
    '/\ufeff/evil.example',
    '//evil.example',
    '///evil.example',
    '/\\evil.example',
    '\\\\evil.example',
    '/.//evil.example',
    'https://evil.example/account',
    'http://app.stampwise.example/account',
    'https://app.stampwise.example:444/account',
    'https://app.stampwise.example.evil.example/',
    'https://app.stampwise.example@evil.example/',
    '//app.stampwise.example@evil.example',
    'javascript:alert(1)',
    'data:text/html,hi',
    'mailto:someone@example.com',
    '',
  ])('refused: %j', (to) => {
    expect(ownPathOrNull(to, APP)).toBeNull()
  })

  test('a file, null or a number is no address', () => {
    expect(ownPathOrNull(new File(['/account'], 'a.txt'), APP)).toBeNull()
    expect(ownPathOrNull(null, APP)).toBeNull()
    expect(ownPathOrNull(42, APP)).toBeNull()
  })

  test('whatever is accepted is a path a browser resolves to our own origin, never two leading slashes', () => {
    const piece = fc.constantFrom(
      '/',
      '\\',
      '\t',
      '\n',
      ' ',
      '.',
      '..',
      '@',
      ':',
      '?',
      '#',
      '%2F',
      'evil.example',
      'app.stampwise.example',
      'https:',
      '\u0000',
      '\u3000',
    )
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 8 }).map((parts) => parts.join('')),
        fc.string(),
        (built, random) => {
          for (const to of [built, random, `/${random}`]) {
            const path = ownPathOrNull(to, APP)
            if (path === null) continue
            expect(path.startsWith('/') && !path.startsWith('//')).toBe(true)
            // A browser follows Location by resolving it against the current page: it must stay on our origin.
            expect(new URL(path, `${APP}/some/page`).origin).toBe(APP)
          }
        },
      ),
      { numRuns: 2000 },
    )
  })
})
