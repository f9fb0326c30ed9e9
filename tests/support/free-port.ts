import net from 'node:net'

/**
 * A loopback port nothing listens on, from the range these tests may use (4600-4699; other work on the machine keeps
 * to other ranges). It starts at a random place in the range, so two files asking at once rarely get the same one.
 */
export async function freePort(from = 4600, to = 4699) {
  const size = to - from + 1
  const start = Math.floor(Math.random() * size)
  for (let n = 0; n < size; n++) {
    const port = from + ((start + n) % size)
    const server = net.createServer()
    const free = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false))
      server.listen(port, '127.0.0.1', () => resolve(true))
    })
    if (free) {
      await new Promise((resolve) => server.close(resolve))
      return port
    }
  }
  throw new Error(`no free port in ${from}-${to}`)
}
