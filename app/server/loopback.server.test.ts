import { describe, expect, test } from 'vitest'
import { beyondLoopbackWarning, isLoopbackAddress, servesDevelopmentTools } from './loopback.server.ts'

describe('loopback addresses', () => {
  test.for([
    '127.0.0.1',
    '127.1.2.3',
    '127.255.255.254',
    '::1',
    '0:0:0:0:0:0:0:1',
    '::ffff:127.0.0.1',
    '::FFFF:127.9.9.9',
  ])('%s is loopback', (address) => {
    expect(isLoopbackAddress(address)).toBe(true)
  })

  test.for([
    '192.0.2.2',
    '10.0.0.1',
    '0.0.0.0',
    '::',
    '::ffff:10.0.0.1',
    'fd00::2',
    'fe80::1',
    '128.0.0.1',
    '127.0.0.1.evil',
    'localhost',
    'unknown',
    '',
    null,
    undefined,
  ])('%s is not', (address) => {
    expect(isLoopbackAddress(address)).toBe(false)
  })

  test('the development tools are for loopback clients outside production only', () => {
    expect(servesDevelopmentTools({ isProduction: false, clientAddress: '127.0.0.1' })).toBe(true)
    expect(servesDevelopmentTools({ isProduction: false, clientAddress: '192.0.2.2' })).toBe(false)
    expect(servesDevelopmentTools({ isProduction: true, clientAddress: '127.0.0.1' })).toBe(false)
  })

  test('start warns when it listens beyond loopback outside production', () => {
    expect(beyondLoopbackWarning('::', { isProduction: false })).toMatch(
      /^Warning: Stampwise listens on every address of this computer/,
    )
    expect(beyondLoopbackWarning('0.0.0.0', { isProduction: false })).toContain('HOST=127.0.0.1')
    expect(beyondLoopbackWarning('192.0.2.2', { isProduction: false })).toContain('listens on 192.0.2.2')
    expect(beyondLoopbackWarning('127.0.0.1', { isProduction: false })).toBeNull()
    expect(beyondLoopbackWarning('::1', { isProduction: false })).toBeNull()
    expect(beyondLoopbackWarning('::', { isProduction: true })).toBeNull()
  })
})
