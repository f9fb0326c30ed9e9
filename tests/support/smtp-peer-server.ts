import http from 'node:http'
import { e2eMailPorts, startSmtpPeer } from './smtp-peer.ts'

/**
 * The SMTP peer as its own process, for Playwright (whose webServer runs the app as a separate process too).
 * SMTP on E2E_SMTP_PORT; the received mail as JSON on E2E_SMTP_HTTP_PORT: GET /messages?to=address.
 */
const ports = e2eMailPorts()
const peer = await startSmtpPeer({ port: ports.smtp })

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost')
  if (req.method === 'GET' && url.pathname === '/healthz') {
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok')
    return
  }
  if (req.method === 'GET' && url.pathname === '/messages') {
    const to = url.searchParams.get('to')
    res
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(JSON.stringify(to ? peer.messagesTo(to) : peer.messages))
    return
  }
  res.writeHead(404).end()
})
server.listen(ports.http, '127.0.0.1')

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close()
    void peer.close().then(() => process.exit(0))
  })
}
