import { type IncomingHttpHeaders } from 'node:http'
import https from 'node:https'

export type PushAnswer = { statusCode: number; headers: IncomingHttpHeaders; body: string }

/**
 * Posts what web-push prepared (`generateRequestDetails` on push-encrypt-pool.server.ts: encrypted body, TTL,
 * VAPID…) to the endpoint's URL as saved. web-push's own sendNotification reads the address again with the legacy
 * `url.parse`, which can name another host than the one checked when the subscription was saved; here the connection
 * goes to the host of the URL object the check accepted, and to nothing else (docs/product/hardening.md, "Push
 * endpoints"). Resolves with any HTTP answer; rejects on network errors and on `timeoutMs` without an answer ("Socket
 * timeout", as web-push says).
 */
export function postToPushService(
  url: URL,
  details: { headers: Record<string, string | number>; body: Buffer | null },
  { agent, timeoutMs }: { agent: https.Agent; timeoutMs: number },
): Promise<PushAnswer> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      { method: 'POST', headers: details.headers, agent, timeout: timeoutMs },
      (response) => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => {
          // The answer is only logged (its start): a service that talks on is not kept in memory.
          if (body.length < 1000) body += chunk
        })
        response.on('end', () => resolve({ statusCode: response.statusCode ?? 0, headers: response.headers, body }))
        response.on('error', reject)
      },
    )
    request.on('timeout', () => request.destroy(new Error('Socket timeout')))
    request.on('error', reject)
    request.end(details.body ?? undefined)
  })
}
