/*
 * The holder's pass, offline (docs/decisions/014-holder-pass-offline.md). One file for every pass, registered by
 * the pass page with the pass's own address as its scope (/p/{passId}), so each pass has its own worker and cache.
 * The page is network-first (a stamp shows at once), falling back to the last copy; the files it uses (hashed
 * CSS and scripts, manifest, icons, logo) are kept as they are fetched.
 *
 * Push (issue #6): every push is shown as a notification (iOS revokes subscriptions that show none), tagged with
 * the message id so a message sent twice (a retry after a crash) shows once; a click opens the message's link or
 * the pass. A subscription the browser renews is saved again, and the old one removed.
 *
 * A page answered from the kept copy (offline) is told so when it asks (message 'page-source'), with the time the
 * copy was saved, so it can say 'Offline: last updated {time}' after hydration instead of editing the page before
 * React hydrates it (docs/decisions/027-holder-pass-page-ownership.md). A pass that no longer exists (404: the holder
 * removed it, or its card was deleted) takes its copy and this worker with it.
 */
const CACHE = 'stampwise-pass-v1:' + new URL(self.registration.scope).pathname
const PAGE = self.registration.scope

/**
 * The same-origin files a page refers to: stylesheets, scripts, manifest, icons. Not the wallet links: the Apple
 * Wallet pass is a download signed anew as stamps change, that a kept copy would only make stale, and 'Save to Google
 * Wallet' makes the pass's object at Google, which only the holder's own tap may do.
 */
function filesOf(html) {
  const files = new Set()
  for (const match of html.matchAll(/(?:href|src)="(\/(?:assets|p)\/[^"]+|\/favicon\.svg)"/g))
    if (!/(?:\.pkpass|\/google-wallet)$/.test(match[1])) files.add(match[1].replaceAll('&amp;', '&'))
  return [...files]
}

async function keepPage(response) {
  const cache = await caches.open(CACHE)
  await cache.put(PAGE, response.clone())
  const html = await response.text()
  await Promise.all(
    filesOf(html).map(async (file) => {
      if (await cache.match(file)) return
      const answer = await fetch(file).catch(() => null)
      if (answer && answer.ok) await cache.put(file, answer)
    }),
  )
}

self.addEventListener('install', (event) => {
  event.waitUntil(
    fetch(PAGE)
      .then((response) => (response.ok ? keepPage(response) : undefined))
      .catch(() => undefined)
      .then(() => self.skipWaiting()),
  )
})

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim())
})

/** Pages (by client id) answered from the kept copy, with the time it was saved; a page asks once, after hydrating. */
const offlineAnswers = new Map()

function rememberOfflineAnswer(clientId, savedAt) {
  offlineAnswers.set(clientId, savedAt ? new Date(savedAt).toISOString() : null)
  // A page that never asks (closed at once) leaves its entry: keep only the latest few.
  if (offlineAnswers.size > 20) offlineAnswers.delete(offlineAnswers.keys().next().value)
}

self.addEventListener('message', (event) => {
  if (!event.data || event.data.type !== 'page-source' || !event.ports[0]) return
  const id = event.source && event.source.id
  const offline = offlineAnswers.has(id)
  event.ports[0].postMessage({ offline, savedAt: offline ? offlineAnswers.get(id) : null })
  offlineAnswers.delete(id)
})

/** The pass is gone: no copy of it may show offline, and no push may reach it. */
async function forgetPass() {
  await caches.delete(CACHE)
  await self.registration.unregister()
}

self.addEventListener('fetch', (event) => {
  const request = event.request
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return
  // The live pass's event stream goes straight to the network: never kept, and not held open through this worker.
  if (request.headers.get('Accept') === 'text/event-stream') return
  if (request.mode === 'navigate') {
    event.respondWith(
      fetch(request)
        .then((response) => {
          if (response.ok && request.url === PAGE) event.waitUntil(keepPage(response.clone()))
          if (response.status === 404 && request.url === PAGE) event.waitUntil(forgetPass())
          return response
        })
        .catch(async () => {
          const copy = await caches.match(request.url === PAGE ? PAGE : request, { cacheName: CACHE })
          if (!copy) return Response.error()
          if (event.resultingClientId) rememberOfflineAnswer(event.resultingClientId, copy.headers.get('Date'))
          return copy
        }),
    )
    return
  }
  // caches.match, not caches.open: opening would create the cache again after the holder removed the card.
  event.respondWith(caches.match(request, { cacheName: CACHE }).then((kept) => kept ?? fetch(request)))
})

const SUBSCRIPTION = PAGE + '/push-subscription'

self.addEventListener('push', (event) => {
  let message = {}
  try {
    message = event.data ? event.data.json() : {}
  } catch {
    message = { body: event.data ? event.data.text() : '' }
  }
  event.waitUntil(
    self.registration.showNotification(message.title || 'Your stamp card', {
      body: message.body || '',
      icon: message.icon,
      tag: message.id,
      data: { url: message.url || PAGE },
    }),
  )
})

self.addEventListener('notificationclick', (event) => {
  event.notification.close()
  const url = (event.notification.data && event.notification.data.url) || PAGE
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((windows) => {
      const open = windows.find((client) => client.url === url && 'focus' in client)
      return open ? open.focus() : self.clients.openWindow(url)
    }),
  )
})

function keyBytes(text) {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4))
  return Uint8Array.from(binary, (char) => char.charCodeAt(0))
}

async function saveSubscription(method, body) {
  await fetch(SUBSCRIPTION, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
}

self.addEventListener('pushsubscriptionchange', (event) => {
  event.waitUntil(
    (async () => {
      const old = event.oldSubscription
      let renewed = event.newSubscription
      if (!renewed) {
        const answer = await fetch(SUBSCRIPTION).then((response) => response.json())
        renewed = await self.registration.pushManager.subscribe({
          userVisibleOnly: true,
          applicationServerKey: keyBytes(answer.publicKey),
        })
      }
      await saveSubscription('POST', renewed.toJSON())
      if (old && old.endpoint !== renewed.endpoint) await saveSubscription('DELETE', { endpoint: old.endpoint })
    })(),
  )
})
