import { AsyncLocalStorage } from 'node:async_hooks'
import { remember } from '@epic-web/remember'

/**
 * Per-request figures gathered while the request runs, whichever module does the work: the number of SQL
 * statements (counted by a Sequelize hook in db.server.ts). app/main/server-hooks.server.ts reports them in the
 * standard Server-Timing header, so a browser's developer tools and the benchmarks can see what a page costs.
 * One store for the process: the hook on the remembered pool counts into it, whichever copy of this module (a dev
 * reload, a test's own) started the request.
 */
type RequestFigures = { queries: number }

const storage = remember('request-figures', () => new AsyncLocalStorage<RequestFigures>())

export function runWithRequestFigures<T>(work: (figures: RequestFigures) => T): T {
  const figures = { queries: 0 }
  return storage.run(figures, () => work(figures))
}

export function countQuery() {
  const figures = storage.getStore()
  if (figures) figures.queries += 1
}
