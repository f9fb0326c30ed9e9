import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { type ServerBuild } from '@remix-run/node'

/**
 * Every page address the build serves: a route with a component (resource routes, which answer JSON or images,
 * have none) and a path or an index, its parents' paths before it — `/account/:cardId/poster`. The same walk as
 * tests/integration/authorization.test.ts, kept to pages so a list of pages can be checked against it.
 */
export async function buildPageAddresses(): Promise<Map<string, string[]>> {
  const build = (await import(pathToFileURL(path.resolve('build/server/index.js')).href)) as ServerBuild
  const addresses = new Map<string, string[]>()
  for (const [id, route] of Object.entries(build.routes)) {
    if (id === 'root' || (route.path === undefined && !route.index) || !route.module.default) continue
    const segments: string[] = []
    for (let at: typeof route | undefined = route; at; at = at.parentId ? build.routes[at.parentId] : undefined) {
      if (at.path) segments.unshift(at.path)
    }
    const address = `/${segments.join('/')}`
    addresses.set(address, [...(addresses.get(address) ?? []), id])
  }
  return addresses
}
