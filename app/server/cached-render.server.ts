import crypto from 'node:crypto'
import { type AppLoadContext } from '@remix-run/node'
import type express from 'express'

/**
 * A page rendered once and answered many times (public-page-cache, versioned-page-cache). Only the CSP nonce must
 * differ per answer: the render uses a random marker as its nonce, and each answer puts its own nonce there.
 */
export type CachedRender = { status: number; headers: [string, string][]; body: string; marker: string }

type Handle = (request: Request, loadContext: AppLoadContext) => Promise<Response>

/** Renders `pathname` with the given request headers; null when the answer must not be reused. */
export async function renderForCache(
  handle: Handle,
  req: express.Request,
  headers: Record<string, string>,
  loadContext: Omit<AppLoadContext, 'cspNonce'>,
): Promise<CachedRender | null> {
  const marker = crypto.randomBytes(18).toString('base64url')
  const response = await handle(
    new Request(new URL(req.path, `http://${req.headers.host ?? 'localhost'}`), { headers }),
    { ...loadContext, cspNonce: marker } as AppLoadContext,
  )
  const body = await response.text()
  // Anything personal to one answer — a cookie being set, an error — is never reused.
  if (response.status !== 200 || response.headers.has('set-cookie')) return null
  return { status: response.status, headers: [...response.headers], body, marker }
}

export function sendCachedRender(res: express.Response, render: CachedRender) {
  res.status(render.status)
  for (const [name, value] of render.headers) res.setHeader(name, value)
  res.send(render.body.replaceAll(render.marker, res.locals.cspNonce as string))
}
