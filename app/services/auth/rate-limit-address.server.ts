import { isIPv4, isIPv6 } from 'node:net'

/**
 * The part of a client address a per-address rate limit counts (docs/product/hardening.md, "Rate limits"): an IPv4
 * address as is, an IPv6 address by its /64. One home or phone is usually given a whole /64, so counting single IPv6
 * addresses would let one client pass any limit by changing the address's last 64 bits.
 */
export function rateLimitAddress(ip: string): string {
  const address = ip.trim().replace(/%.*$/, '') // a zone index (fe80::1%eth0) names the interface, not the client
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]! // IPv4 seen through a dual-stack socket
  if (!isIPv6(address)) return address
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`
}

/** The eight 16-bit groups of a valid IPv6 address, in lowercase hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  const groupsOf = (part: string) => {
    if (!part) return []
    const groups = part.split(':')
    const last = groups.at(-1)!
    // A dotted IPv4 tail (::1.2.3.4) stands for two groups.
    if (last.includes('.')) groups.splice(-1, 1, ...ipv4AsGroups(last))
    return groups
  }
  const [head = '', tail] = address.split('::')
  const before = groupsOf(head)
  const after = tail === undefined ? [] : groupsOf(tail)
  const zeros = Array<string>(8 - before.length - after.length).fill('0')
  return [...before, ...zeros, ...after].map((group) => parseInt(group, 16).toString(16))
}

function ipv4AsGroups(dotted: string): string[] {
  const [a = 0, b = 0, c = 0, d = 0] = dotted.split('.').map(Number)
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)]
}
