import { describe, expect, test } from 'vitest'
import { isChunkLoadError } from './chunk-error.ts'

describe('isChunkLoadError', () => {
  test.each([
    'Failed to fetch dynamically imported module: https://example.com/assets/about-abc123.js',
    'error loading dynamically imported module',
    'Importing a module script failed.',
    'Unable to preload CSS for /assets/app-1234.css',
  ])('recognises %s', (message) => {
    expect(isChunkLoadError(new TypeError(message))).toBe(true)
  })

  test('other errors are not chunk errors', () => {
    expect(isChunkLoadError(new Error('Cannot read properties of undefined'))).toBe(false)
    expect(isChunkLoadError('Failed to fetch dynamically imported module')).toBe(false)
    expect(isChunkLoadError(undefined)).toBe(false)
  })
})
