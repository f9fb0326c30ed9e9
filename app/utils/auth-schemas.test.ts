import { describe, expect, test } from 'vitest'
import { ChangePasswordSchema, LoginSchema, SignupSchema } from './auth-schemas.ts'

const messages = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  Object.fromEntries((result.error?.issues ?? []).map((issue) => [issue.path.join('.'), issue.message]))

describe('auth schemas', () => {
  test('login checks the e-mail format and a 6-character password', () => {
    expect(messages(LoginSchema.safeParse({ email: 'nope', password: '12345' }))).toEqual({
      email: 'Invalid email format',
      password: 'Password must be 6 or more characters',
    })
    expect(LoginSchema.safeParse({ email: ' Owner@Example.com ', password: 'whatever' }).success).toBe(true)
  })

  test.each([
    ['Ab1!', '6 characters minimum'],
    ['abcdef1!', 'At least one uppercase letter'],
    ['Abcdefg!', 'At least one number'],
    ['Abcdef12', 'At least one special character !@#$%^&*().,'],
  ])('sign-up refuses %s with "%s"', (password, message) => {
    const result = SignupSchema.safeParse({ email: 'a@b.co', password, confirmPassword: password })
    expect(messages(result).password).toBe(message)
  })

  test('sign-up and change-password word a mismatch differently, as specified', () => {
    expect(
      messages(SignupSchema.safeParse({ email: 'a@b.co', password: 'Abcdef1!', confirmPassword: 'x' })).confirmPassword,
    ).toBe("Passwords don't match")
    const token = 'x'.repeat(43)
    expect(
      messages(ChangePasswordSchema.safeParse({ password: 'Abcdef1!', confirmPassword: 'x', token })).confirmPassword,
    ).toBe('Passwords do not match')
    expect(ChangePasswordSchema.safeParse({ password: 'Abcdef1!', confirmPassword: 'Abcdef1!', token }).success).toBe(
      true,
    )
  })
})
