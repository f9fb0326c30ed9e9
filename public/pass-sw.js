/*
 * The holder's pass, offline (docs/decisions/014-holder-pass-offline.md). One file for every pass, registered by
 * the pass page with the pass's own address as its scope (/p/{passId}), so each pass has its own worker and cache.
 * The page is network-first (a stamp shows at once), falling back to the last copy; the files it uses (hashed
 * CSS and scripts, manifest, icons, logo) are kept as they are fetched. Issue #6 adds push handling here.
 */
const CACHE = 'stampwise-pass-v1:' + new URL(self.registration.scope).pathname
const PAGE = self.registration.scope

/** The same-origin files a page refers to: stylesheets, scripts, manifest, icons. */
function filesOf(html) {
  const files = new Set()
  for (const match of html.matchAll(/(?:href|src)="(\/(?:assets|p)\/[^"]+|\/favicon\.svg)"/g)) files.add(match[1].replaceAll('&amp;', '&'))
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

self.addEventListener('fetch', (event) => {
  const request = event.request
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return
  if (request.mode === 'navigate') {
    event.respondWith(
      fetch(request)
        .then((response) => {
          if (response.ok && request.url === PAGE) event.waitUntil(keepPage(response.clone()))
          return response
        })
        .catch(async () => (await caches.match(request.url === PAGE ? PAGE : request, { cacheName: CACHE })) ?? Response.error()),
    )
    return
  }
  event.respondWith(
    caches.open(CACHE).then(async (cache) => (await cache.match(request)) ?? fetch(request)),
  )
})
