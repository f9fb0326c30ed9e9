import { type ServerBuild } from '@remix-run/node'
import { matchRoutes } from '@remix-run/react'

/*
 * Routes are labelled by their pattern (`/p/:passId`), never by the address: a label per pass id would grow without
 * bound (a time series per holder) and put holders' ids into the monitoring system.
 */

type RouteObject = Parameters<typeof matchRoutes>[0][number]

const MAX_KEPT_LABELS = 5_000

/** Labels a request by the pattern of the deepest route it matches (`/account/:cardId/poster`), or `unmatched`. */
export function routeLabeller(getRoutes: () => ServerBuild['routes'] | undefined) {
  let tree: { routes: ServerBuild['routes']; objects: RouteObject[]; labels: Map<string, string> } | undefined
  return (pathname: string): string => {
    if (pathname.startsWith('/assets/')) return '/assets/*'
    const routes = getRoutes()
    if (!routes) return 'unmatched'
    if (tree?.routes !== routes) tree = { routes, objects: routeObjects(routes), labels: new Map() }
    // Matching walks every route: the label of a recent address (an owner's card page, a busy pass) is kept.
    let label = tree.labels.get(pathname)
    if (label === undefined) {
      const matches = matchRoutes(tree.objects, pathname)
      label = matches
        ? `/${matches
            .map((match) => match.route.path?.replace(/^\/|\/$/g, ''))
            .filter(Boolean)
            .join('/')}`
        : 'unmatched'
      if (tree.labels.size >= MAX_KEPT_LABELS) tree.labels.delete(tree.labels.keys().next().value!)
      tree.labels.set(pathname, label)
    }
    return label
  }
}

function routeObjects(routes: ServerBuild['routes'], parentId?: string): RouteObject[] {
  return Object.values(routes)
    .filter((route) => route.parentId === parentId)
    .map((route) =>
      route.index
        ? { id: route.id, path: route.path, index: true }
        : {
            id: route.id,
            path: route.path,
            caseSensitive: route.caseSensitive,
            children: routeObjects(routes, route.id),
          },
    )
}
