import crypto from 'node:crypto'
import { describe, expect, test } from 'vitest'
import {
  AUTH_INVALID,
  ENDPOINT_NOT_HTTPS,
  ENDPOINT_NOT_NORMAL,
  ENDPOINT_UNKNOWN_SERVICE,
  isAllowedPushEndpoint,
  normalPushEndpoint,
  P256DH_INVALID,
  pushSubscriptionSchema,
} from './push-subscription.ts'

const p256dh = crypto.createECDH('prime256v1').generateKeys().toString('base64url')
const auth = crypto.randomBytes(16).toString('base64url')
const schema = pushSubscriptionSchema(['localhost:4433'])
const messages = (body: unknown) => {
  const result = schema.safeParse(body)
  return result.success ? [] : result.error.issues.map((issue) => issue.message)
}

describe('push subscription endpoints', () => {
  test.each([
    'https://fcm.googleapis.com/fcm/send/abc:def',
    'https://updates.push.services.mozilla.com/wpush/v2/gAAAA',
    'https://web.push.apple.com/QGx9',
    'https://db5p.notify.windows.com/w/?token=abc',
    'https://localhost:4433/push/abc',
  ])('%s is accepted', (endpoint) => {
    expect(isAllowedPushEndpoint(endpoint, ['localhost:4433'])).toBe(true)
  })

  test.each([
    ['http://fcm.googleapis.com/fcm/send/abc', 'plain http'],
    ['https://evil.example.com/push', 'an unknown host'],
    ['https://fcm.googleapis.com.evil.example.com/x', 'a known name as a prefix'],
    ['https://evilpush.apple.com/x', 'a suffix without its dot'],
    ['https://fcm.googleapis.com:8443/x', 'a known host on another port'],
    ['https://localhost:4434/push/abc', 'an allowed host on another port'],
    ['https://user:pw@fcm.googleapis.com/x', 'credentials in the address'],
    ['https://127.0.0.1:4433/push/abc', 'the allowed host by another name'],
    ['https://localhost{.push.apple.com/x', 'a host url.parse reads as localhost'],
    ['https://FCM.googleapis.com/fcm/send/abc', 'not in its normal form (upper case)'],
    ['https://fcm.googleapis.com:443/fcm/send/abc', 'not in its normal form (default port)'],
    ['https://fcm.googleapis.com/fcm/send/a b', 'not in its normal form (a space)'],
    ['https://fcm.googleapis.com', 'not in its normal form (no path)'],
    ['https://xn--fcm-6na.googleapis.com.evil/x', 'an unknown host in punycode'],
  ])('%s is refused (%s)', (endpoint) => {
    expect(isAllowedPushEndpoint(endpoint, ['localhost:4433'])).toBe(false)
  })

  test.each(['{', '}', ';', "'", '"', '`'])('a host with %s is refused whichever parser reads it', (character) => {
    const endpoint = `https://localhost${character}.push.apple.com/x`
    expect(isAllowedPushEndpoint(endpoint, [])).toBe(false)
    expect(normalPushEndpoint(endpoint)).toBeNull()
  })
})

describe('the subscription body', () => {
  const valid = { endpoint: 'https://fcm.googleapis.com/fcm/send/abc', keys: { p256dh, auth } }

  test('a browser subscription passes, extra fields (expirationTime) are ignored', () => {
    expect(messages({ ...valid, expirationTime: null })).toEqual([])
  })

  test('each fault has its own message', () => {
    expect(messages({ ...valid, endpoint: 'http://fcm.googleapis.com/x' })).toEqual([ENDPOINT_NOT_HTTPS])
    expect(messages({ ...valid, endpoint: 'https://localhost{.push.apple.com/x' })).toEqual([ENDPOINT_NOT_NORMAL])
    expect(messages({ ...valid, endpoint: 'https://fcm.googleapis.com/fcm/send/%7b' })).toEqual([])
    expect(messages({ ...valid, endpoint: 'https://attacker.example/x' })).toEqual([ENDPOINT_UNKNOWN_SERVICE])
    expect(messages({ ...valid, keys: { p256dh: auth, auth } })).toEqual([P256DH_INVALID])
    expect(messages({ ...valid, keys: { p256dh, auth: p256dh } })).toEqual([AUTH_INVALID])
    expect(messages({ ...valid, keys: { p256dh: 'not base64!', auth } })).toEqual([P256DH_INVALID])
    expect(messages({ endpoint: valid.endpoint })).toEqual(['keys is required: {"p256dh", "auth"}'])
    expect(messages({ ...valid, endpoint: `https://fcm.googleapis.com/${'a'.repeat(2100)}` })[0]).toMatch(
      /at most 2048/,
    )
    expect(messages({ ...valid, endpoint: 42 })).toEqual(['endpoint is required'])
  })
})
