/**
 * The yardstick of `npm run bench:push-fanout`: the web-push library's own loop, `sendNotification` to every
 * subscription with a fixed number in flight, no database. Run as its own process (like the app's) by the
 * benchmark: argv = subscriptions JSON file, concurrency. Prints one JSON line: { sent, failed, ms }.
 */
import fs from 'node:fs'
import https from 'node:https'
import webpush from 'web-push'

const [file, concurrencyArg] = process.argv.slice(2)
const subscriptions = JSON.parse(fs.readFileSync(file!, 'utf8')) as webpush.PushSubscription[]
const concurrency = Number(concurrencyArg)
const vapidDetails = { subject: 'mailto:bench@example.com', ...webpush.generateVAPIDKeys() }
// Kept-alive connections, as the app uses: the comparison is of the work around each request, not of TLS set-ups.
const agent = new https.Agent({ keepAlive: true, maxSockets: 256 })
const payload = JSON.stringify({
  id: 'raw',
  title: 'Happy hour',
  body: 'Two coffees for one until 6 pm',
  url: 'https://example.com/p/x',
})

let next = 0
let sent = 0
let failed = 0
const started = performance.now()
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < subscriptions.length) {
      const subscription = subscriptions[next++]!
      try {
        await webpush.sendNotification(subscription, payload, {
          vapidDetails,
          TTL: 86_400,
          urgency: 'normal',
          topic: 'rawloop',
          agent,
        })
        sent++
      } catch {
        failed++
      }
    }
  }),
)
console.log(JSON.stringify({ sent, failed, ms: Math.round(performance.now() - started) }))
agent.destroy()
