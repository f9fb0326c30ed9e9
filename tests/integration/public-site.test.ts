import { describe, expect, test } from 'vitest'
import { useTestServer } from '#tests/support/test-server.ts'

const server = useTestServer()

describe('public site', () => {
  test('the landing page lists the plans from the tariffs table', async () => {
    const response = await server.fetch('/')
    expect(response.status).toBe(200)
    const html = await response.text()
    for (const name of ['Basic', 'Standard', 'Premium']) expect(html).toContain(name)
  })

  test('an unknown address answers 404 with the not-found page', async () => {
    const response = await server.fetch('/no-such-page/at-all')
    expect(response.status).toBe(404)
    expect(await response.text()).toContain('find that page')
  })

  test('/healthz answers 200 while the database is up', async () => {
    const response = await server.fetch('/healthz')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ status: 'ok', database: 'up' })
  })
})
