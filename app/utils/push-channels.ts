/**
 * The ways a message reaches a holder's device, each counted apart (docs/product/wallets.md "Reach and history count
 * channels"): web push to a browser with notifications on, an Apple Wallet pass (an APNs push that makes the device
 * fetch the pass showing the message), and a Google Wallet pass (the message added to it). A channel is a key here, its
 * words, and its table in models/notification.server.ts. Pure, so pages use it in the browser too.
 */
export const DELIVERY_CHANNELS = ['web', 'appleWallet', 'googleWallet'] as const
export type DeliveryChannel = (typeof DELIVERY_CHANNELS)[number]
export type ChannelCounts = {
  sent: number
  failed: number
  pending: number
  /** Of the sent, those shown without a notification (Google notifies a pass at most 3 times a day). */
  quiet?: number
}
export type ChannelBreakdown = Record<DeliveryChannel, ChannelCounts>
/** Devices a message reaches, per channel. */
export type PushReach = Record<DeliveryChannel, number>

/** Each channel in the owner's words: a heading, and what a count of its devices is ("2 with notifications on"). */
export const CHANNEL_WORDS: Record<DeliveryChannel, { name: string; devices: string }> = {
  web: { name: 'Notifications on', devices: 'with notifications on' },
  appleWallet: { name: 'Apple Wallet', devices: 'in Apple Wallet' },
  googleWallet: { name: 'Google Wallet', devices: 'in Google Wallet' },
}

/** The channels' counts added up. */
export function sumChannels(channels: ChannelBreakdown): ChannelCounts {
  const total = { sent: 0, failed: 0, pending: 0 }
  for (const channel of DELIVERY_CHANNELS) {
    total.sent += channels[channel].sent
    total.failed += channels[channel].failed
    total.pending += channels[channel].pending
  }
  return total
}

export const totalReach = (reach: PushReach) => DELIVERY_CHANNELS.reduce((sum, channel) => sum + reach[channel], 0)

const devices = (count: number) => (count === 1 ? '1 device' : `${count} devices`)

/**
 * "Will reach 3 devices: 2 with notifications on, 1 in Apple Wallet"; one channel alone is named without a list
 * ("Will reach 2 devices with notifications on"), and nobody is "Will reach 0 devices".
 */
export function reachText(reach: PushReach): string {
  const total = totalReach(reach)
  const used = DELIVERY_CHANNELS.filter((channel) => reach[channel] > 0)
  if (used.length === 0) return `Will reach ${devices(total)}`
  if (used.length === 1) return `Will reach ${devices(total)} ${CHANNEL_WORDS[used[0]!].devices}`
  return `Will reach ${devices(total)}: ${used.map((channel) => `${reach[channel]} ${CHANNEL_WORDS[channel].devices}`).join(', ')}`
}

/** The channels a sent message has rows on, in order: what its history and progress list apart. */
export function channelsUsed(channels: ChannelBreakdown): DeliveryChannel[] {
  return DELIVERY_CHANNELS.filter(
    (channel) => channels[channel].sent + channels[channel].failed + channels[channel].pending > 0,
  )
}

/**
 * One channel's counts in the owner's words, with `sent` named as the page names it ("delivered" in history, "sent"
 * while sending): "2 delivered · 0 failed · 1 pending", and "· 1 shown, not notified" when Google Wallet showed a
 * message without notifying (its limit of 3 a day per pass).
 */
export function channelCountsText(counts: ChannelCounts, sentWord: 'delivered' | 'sent') {
  const text = `${counts.sent} ${sentWord} · ${counts.failed} failed · ${counts.pending} pending`
  return counts.quiet ? `${text} · ${counts.quiet} shown, not notified` : text
}
