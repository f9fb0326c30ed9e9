import {
  changeEvent,
  closeAllPassStreams,
  watchPass,
  type LiveListener,
} from '#app/services/passes/pass-live-feed.server.ts'
import { getPassPageVersion } from '#models/pass.server.ts'
import type express from 'express'

/**
 * GET /p/{passId}/live: the open pass page's event stream (pass-live-feed.server.ts). Mounted before compression,
 * which would hold the events back to fill its buffer, and before Remix: a stream per open page must cost a socket
 * and a few objects, not a Remix request. `?v=` is the version the page shows; when it is behind already (a stamp
 * between the render and the connection), 'change' is sent at once.
 */
const LIVE_PATH = /^\/p\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/live$/

export const passLiveStream: express.RequestHandler = (req, res, next) => {
  if (req.method !== 'GET' && req.method !== 'HEAD') return next()
  const match = LIVE_PATH.exec(req.path)
  if (!match) return next()
  const passId = match[1]!
  getPassPageVersion(passId)
    .then((current) => {
      if (current === null) {
        res.status(404).set('Cache-Control', 'no-store').type('text/plain').send('This card is not here any more.')
        return
      }
      const asked = typeof req.query.v === 'string' && /^[\d|]{1,64}$/.test(req.query.v) ? req.query.v : current
      const listener: LiveListener = {
        version: asked,
        write: (chunk) => {
          if (!res.writableEnded) res.write(chunk)
        },
        end: () => {
          if (!res.writableEnded) res.end()
        },
      }
      const unwatch = watchPass(passId, listener)
      if (!unwatch) {
        res
          .status(429)
          .set({ 'Cache-Control': 'no-store', 'Retry-After': '60' })
          .type('text/plain')
          .send('This card is open on too many pages at once.')
        return
      }
      res.on('close', unwatch)
      res.status(200).set({
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store',
        'X-Accel-Buffering': 'no',
      })
      res.flushHeaders()
      // A lost connection is tried again after 5 s (EventSource does it by itself).
      listener.write('retry: 5000\n\n')
      if (asked !== current) {
        listener.version = current
        listener.write(changeEvent(current))
      }
      if (req.method === 'HEAD') listener.end()
    })
    .catch(next)
}

export { closeAllPassStreams }
