import { afterEach, beforeEach, vi, type MockInstance } from 'vitest'

// A test that logs console.error fails: an error nobody asserted on is a bug nobody will see.
let consoleError: MockInstance<typeof console.error>

beforeEach(() => {
  const original = console.error
  consoleError = vi.spyOn(console, 'error').mockImplementation((...args: Parameters<typeof console.error>) => {
    original(...args)
    throw new Error(`console.error was called: ${args.map(String).join(' ')}`)
  })
})

afterEach(() => {
  consoleError.mockRestore()
})
