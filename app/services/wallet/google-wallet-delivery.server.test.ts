import { expect, test } from 'vitest'
import { isNotificationQuotaExceeded } from './google-wallet-client.server.ts'
import { googleUpdateOutcome } from './google-wallet-delivery.server.ts'

test('what Google’s answer means: sent, gone (404), retried (429, 5xx, no answer), or failed', () => {
  expect(googleUpdateOutcome({ status: 200, body: {} })).toEqual({ status: 'sent' })
  expect(googleUpdateOutcome({ status: 404, body: { error: { message: 'not found' } } })).toEqual({
    status: 'gone',
    error: '404 not found',
  })
  expect(googleUpdateOutcome({ status: 429, body: null, retryAfterMs: 2000 })).toMatchObject({
    status: 'retry',
    retryAfterMs: 2000,
  })
  expect(googleUpdateOutcome({ status: 503, body: 'busy' }).status).toBe('retry')
  expect(googleUpdateOutcome({ status: 0, error: 'ECONNRESET' })).toMatchObject({
    status: 'retry',
    error: 'ECONNRESET',
  })
  expect(googleUpdateOutcome({ status: 400, body: { error: { status: 'INVALID_ARGUMENT' } } })).toEqual({
    status: 'failed',
    error: '400 INVALID_ARGUMENT',
  })
})

test('a refused notification is told from other 403s by its reason, quotaExceeded', () => {
  const quota = { error: { code: 403, errors: [{ domain: 'walletobjects', reason: 'quotaExceeded' }] } }
  expect(isNotificationQuotaExceeded({ status: 403, body: quota })).toBe(true)
  expect(
    isNotificationQuotaExceeded({ status: 403, body: { error: { code: 403, status: 'PERMISSION_DENIED' } } }),
  ).toBe(false)
  expect(isNotificationQuotaExceeded({ status: 429, body: quota })).toBe(false)
  expect(isNotificationQuotaExceeded({ status: 403, body: 'Forbidden' })).toBe(false)
})
