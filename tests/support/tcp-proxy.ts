import net from 'node:net'

/**
 * A TCP proxy the test owns, between the app and its database, to take the database away and bring it back
 * without touching the database itself. Listens on 127.0.0.1 (a free port) and forwards to a TCP address or a
 * Unix socket (the embedded database).
 * - `cut()`: closes every connection and refuses new ones (the database went down).
 * - `blackhole()`: connections stay open but nothing passes any more, in either direction, and new ones are
 *   accepted and never answered (a network that silently drops packets). Those connections stay dead for good.
 * - `restore()`: new connections are forwarded again.
 */
export type ProxyTarget = { host: string; port: number } | { path: string }

export async function startTcpProxy(target: ProxyTarget) {
  let mode: 'forward' | 'cut' | 'blackhole' = 'forward'
  const pairs = new Set<{ client: net.Socket; upstream?: net.Socket; dead: boolean }>()

  const server = net.createServer((client) => {
    client.on('error', () => {})
    if (mode === 'cut') return void client.destroy()
    const pair: { client: net.Socket; upstream?: net.Socket; dead: boolean } = { client, dead: mode === 'blackhole' }
    pairs.add(pair)
    client.on('close', () => {
      pairs.delete(pair)
      pair.upstream?.destroy()
    })
    if (pair.dead) return void client.resume() // read and drop
    const upstream = net.connect(target)
    pair.upstream = upstream
    upstream.on('error', () => client.destroy())
    upstream.on('close', () => client.destroy())
    client.on('data', (chunk) => {
      if (!pair.dead) upstream.write(chunk)
    })
    upstream.on('data', (chunk) => {
      if (!pair.dead) client.write(chunk)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo

  return {
    host: '127.0.0.1',
    port,
    /** How many client connections are open through the proxy. */
    openConnections: () => pairs.size,
    cut() {
      mode = 'cut'
      for (const pair of pairs) {
        pair.client.destroy()
        pair.upstream?.destroy()
      }
      pairs.clear()
    },
    blackhole() {
      mode = 'blackhole'
      for (const pair of pairs) pair.dead = true
    },
    restore() {
      mode = 'forward'
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const pair of pairs) {
          pair.client.destroy()
          pair.upstream?.destroy()
        }
        server.close(() => resolve())
      }),
  }
}
