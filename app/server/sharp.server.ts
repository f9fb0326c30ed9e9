import { loadOnFirstUse } from './load-on-first-use.server.ts'

/** sharp (libvips), loaded by the first image drawn or checked: logos, pass icons, wallet images. */
export const loadSharp = loadOnFirstUse(() => import('sharp').then((module) => module.default))
