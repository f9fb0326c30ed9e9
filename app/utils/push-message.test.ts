import { expect, test } from 'vitest'
import { PUSH_MESSAGES, PushMessageSchema } from './push-message.ts'

const errors = (input: Record<string, unknown>) => {
  const result = PushMessageSchema.safeParse(input)
  return result.success ? [] : result.error.issues.map((issue) => issue.message)
}

test('a title, a body and an optional link', () => {
  expect(
    PushMessageSchema.parse({ title: ' Hello ', body: 'Two for one today', link: 'https://example.com/menu' }),
  ).toEqual({
    title: 'Hello',
    body: 'Two for one today',
    link: 'https://example.com/menu',
  })
  expect(errors({ title: 'Hi', body: 'There' })).toEqual([])
})

test('limits and messages', () => {
  expect(errors({ title: '', body: '' })).toEqual([PUSH_MESSAGES.title, PUSH_MESSAGES.body])
  expect(errors({ title: 'x'.repeat(51), body: 'y'.repeat(181) })).toEqual([
    PUSH_MESSAGES.titleLong,
    PUSH_MESSAGES.bodyLong,
  ])
  expect(errors({ title: 'x'.repeat(50), body: 'y'.repeat(180) })).toEqual([])
  expect(errors({ title: 'Hi', body: 'There', link: 'javascript:alert(1)' })).toEqual([PUSH_MESSAGES.link])
  expect(errors({ title: 'Hi', body: 'There', link: 'example.com' })).toEqual([PUSH_MESSAGES.link])
  expect(errors({ title: 'Hi', body: 'There', link: 'https://' })).toEqual([PUSH_MESSAGES.link])
  expect(errors({ title: 42, body: ['a'] })).toEqual([PUSH_MESSAGES.title, PUSH_MESSAGES.body])
})
