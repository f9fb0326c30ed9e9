import net from 'node:net'

/**
 * Outside production, /dev/mailbox (every reset link) and the demo account (a published password) answer only the
 * computer Stampwise runs on (docs/product/hardening.md, "Loopback-only pages"). The client address is
 * the one Express sees (TRUST_PROXY honoured): behind a proxy on the same computer, set TRUST_PROXY, or every
 * visitor looks local.
 */
export function isLoopbackAddress(address: string | null | undefined): boolean {
  if (!address) return false
  const normalized = address.toLowerCase()
  if (net.isIPv6(normalized) && !normalized.startsWith('::ffff:'))
    return normalized === '::1' || normalized === '0:0:0:0:0:0:0:1'
  const ipv4 = normalized.startsWith('::ffff:') ? normalized.slice('::ffff:'.length) : normalized
  return net.isIPv4(ipv4) && ipv4.startsWith('127.')
}

/** The development-only tools are for this computer only; in production they do not exist. */
export const servesDevelopmentTools = ({
  isProduction,
  clientAddress,
}: {
  isProduction: boolean
  clientAddress: string
}) => !isProduction && isLoopbackAddress(clientAddress)

/**
 * The warning `npm start` prints when it listens on more than loopback outside production (HOST unset listens on
 * every interface), or null. `address` is the listening socket's address.
 */
export function beyondLoopbackWarning(address: string, { isProduction }: { isProduction: boolean }): string | null {
  if (isProduction || isLoopbackAddress(address)) return null
  const where = address === '::' || address === '0.0.0.0' ? 'every address of this computer' : address
  return (
    `Warning: Stampwise listens on ${where} outside production, so other computers can reach it. ` +
    `/dev/mailbox and the demo account answer only this computer; set HOST=127.0.0.1 to listen on this computer only.`
  )
}
