import fs from 'node:fs'
import { expect, test } from 'vitest'

/*
 * server.ts is the HTTP shell: the app's modules are loaded once, by the server build, and reach the shell through
 * the build's `serverHooks` (docs/decisions/001-process-and-module-graph.md). A value import of app/ or models/ here
 * would load a second copy of them beside the build's.
 */
const APP_MODULE = /^(#app\/|#models\/|\.\/app\/|\.\/models\/|\.\.?\/app\/|\.\.?\/models\/)/

/** Every module server.ts imports, with whether the import is only of types (erased, so it loads nothing). */
function importsOf(source: string) {
  const statements = source.matchAll(/^\s*(import|export)\b([^'";]*?)\bfrom\s*['"]([^'"]+)['"]/gms)
  // `import type { A }` or `import { type A, type B as C }`: erased by TypeScript.
  const onlyTypes = /^\s*(type\b|\{(\s*type\s+[\w$]+(\s+as\s+[\w$]+)?\s*,?)*\s*\}\s*$)/
  const imports = [...statements].map(([, , clause, from]) => ({ from: from!, typeOnly: onlyTypes.test(clause!) }))
  const loaded = (pattern: RegExp) =>
    [...source.matchAll(pattern)].map(([, from]) => ({ from: from!, typeOnly: false }))
  // `import './x'` and `await import('./x')` load their module.
  return [...imports, ...loaded(/^\s*import\s*['"]([^'"]+)['"]/gm), ...loaded(/\bimport\(\s*['"`]([^'"`]+)['"`]/g)]
}

test('server.ts imports nothing from app/ or models/ but types', () => {
  const source = fs.readFileSync(new URL('./server.ts', import.meta.url), 'utf8')
  const imports = importsOf(source)
  expect(imports.map((entry) => entry.from)).toContain('express')
  expect(imports.filter((entry) => APP_MODULE.test(entry.from) && !entry.typeOnly)).toEqual([])
})

test('the check sees a value import of the app, static or dynamic', () => {
  const found = (source: string) => importsOf(source).filter((entry) => APP_MODULE.test(entry.from) && !entry.typeOnly)
  expect(found(`import { getEnv } from '#app/server/env.server.ts'`)).toHaveLength(1)
  expect(found(`import { type Env, getEnv } from '#app/server/env.server.ts'`)).toHaveLength(1)
  expect(found(`import {\n  isDatabaseHealthy,\n} from '#app/server/db.server.ts'`)).toHaveLength(1)
  expect(found(`import * as pass from '#models/pass.server.ts'`)).toHaveLength(1)
  expect(found(`import './app/server/jobs.server.ts'`)).toHaveLength(1)
  expect(found(`const jobs = await import('#app/main/jobs.server.ts')`)).toHaveLength(1)
  expect(found(`export { serverHooks } from './app/main/server-hooks.server.ts'`)).toHaveLength(1)
  expect(found(`import type { ServerHooks } from '#app/main/server-hooks.server.ts'`)).toEqual([])
  expect(found(`import { type Env, type ServerHooks as Hooks } from '#app/main/server-hooks.server.ts'`)).toEqual([])
})

test('forms may leave for Stripe’s checkout and portal only when paying by card is on', async () => {
  const { stripeFormOrigins } = await import('./server.ts')
  const stripe = 'https://api.stripe.com'
  expect(stripeFormOrigins({ STRIPE_SECRET_KEY: undefined, STRIPE_API_ORIGIN: stripe })).toEqual([])
  expect(stripeFormOrigins({ STRIPE_SECRET_KEY: 'sk_live_x', STRIPE_API_ORIGIN: stripe })).toEqual([
    'https://checkout.stripe.com',
    'https://billing.stripe.com',
  ])
  // Another API origin (the test peer) serves its stand-in pages itself.
  expect(stripeFormOrigins({ STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_API_ORIGIN: 'http://127.0.0.1:4550' })).toEqual([
    'http://127.0.0.1:4550',
  ])
})
