import { ownPathOrNull } from './safe-redirect.server.ts'
import type express from 'express'

/**
 * How the request guards (request-guards.server.ts) say no, in the shape the asker reads:
 * - a JSON call (/api/…, the pass's push-subscription call, or an asker that wants JSON) gets the JSON calls'
 *   one shape, `{status: "error", message, msg, errors}` (docs/product/contracts.md, "JSON answers");
 * - a Remix data request (`?_data=`, `.data`: a form sent with JavaScript) gets the same JSON marked
 *   `X-Remix-Catch`, so the page's error boundary shows the message instead of a network failure;
 * - anything else (a form sent without JavaScript) gets a small page with the message and a way back.
 */
export type Refusal = {
  status: 400 | 403 | 413
  /** The page's heading. */
  title: string
  message: string
  /** What the page adds for a person (what happened, what to do). */
  detail?: string
}

const isJsonCall = (req: express.Request) =>
  req.path.startsWith('/api/') ||
  /^\/p\/[^/]+\/push-subscription\/?$/.test(req.path) ||
  req.accepts(['html', 'json']) === 'json'

export const isRemixDataRequest = (req: express.Request) =>
  req.path.endsWith('.data') || new URLSearchParams(req.originalUrl.split('?')[1] ?? '').has('_data')

export function sendRefusal(
  req: express.Request,
  res: express.Response,
  { status, title, message, detail }: Refusal,
  appUrl: string,
) {
  res.status(status).set('Cache-Control', 'no-store')
  if (isRemixDataRequest(req) || isJsonCall(req)) {
    if (isRemixDataRequest(req)) res.set('X-Remix-Catch', 'yes')
    res.json({ status: 'error', message, msg: message, errors: {} })
    return
  }
  // Back to the page the form was on (its address answers GET), when that is one of ours.
  const back = ownPathOrNull(req.originalUrl, appUrl) ?? '/'
  res.type('html').send(refusalPage(title, detail ? `${message}. ${detail}` : message, back))
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`)

// Outside Remix, so no stylesheet of the build: a few inline rules keep it readable on a 360 px phone.
const refusalPage = (title: string, message: string, back: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} — Stampwise</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>body{font-family:system-ui,sans-serif;line-height:1.5;margin:0 auto;max-width:36rem;padding:2rem 1rem;color:#1b1b1b}a{color:#0b5cad}</style>
</head>
<body>
<main class="error-screen" role="alert">
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p>
<p><a href="${escapeHtml(back)}">Go back</a> · <a href="/">Stampwise home</a></p>
</main>
</body>
</html>
`
