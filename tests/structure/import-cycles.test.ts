import { expect, test } from 'vitest'
import { findCycles, importedSpecifiers, importGraph } from './import-graph.ts'

/*
 * No module of app/, models/ or migrations/ loads itself again through its imports: a circle makes the order in
 * which modules run depend on which one is imported first (a constant read before it is set), and means two layers
 * each know the other (docs/decisions/054-composition-root-and-layers.md).
 */
test('the app, models and migrations have no import cycle', () => {
  const graph = importGraph()
  expect(graph.size).toBeGreaterThan(100)
  const cycles = findCycles(graph).map((cycle) => cycle.join(' → '))
  expect(cycles, `import cycles:\n${cycles.join('\n')}`).toEqual([])
})

test('a cycle is found and named by its files', () => {
  const graph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts']],
    ['c.ts', ['a.ts', 'd.ts']],
    ['d.ts', []],
    ['e.ts', ['e.ts']],
  ])
  expect(findCycles(graph)).toEqual([
    ['a.ts', 'b.ts', 'c.ts', 'a.ts'],
    ['e.ts', 'e.ts'],
  ])
  expect(
    findCycles(
      new Map([
        ['a.ts', ['b.ts']],
        ['b.ts', []],
      ]),
    ),
  ).toEqual([])
})

test('imports, re-exports, dynamic and type-only imports all count', () => {
  const source = [
    `import { a } from './a.ts'`,
    `import { type B, c } from '#app/c.ts'`,
    `import './side-effect.ts'`,
    `export { d } from './d.ts'`,
    `const e = await import('./e.ts')`,
    `import type { F } from './f.ts'`,
    `import { type G, type H } from './g.ts'`,
    `export type { I } from './i.ts'`,
  ].join('\n')
  expect(importedSpecifiers(source)).toEqual([
    './a.ts',
    '#app/c.ts',
    './side-effect.ts',
    './d.ts',
    './e.ts',
    './f.ts',
    './g.ts',
    './i.ts',
  ])
})
