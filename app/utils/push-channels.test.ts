import { expect, test } from 'vitest'
import { channelsUsed, reachText, sumChannels } from './push-channels.ts'

test('reach in the owner words: each channel named, one alone without a list, nobody as 0 devices', () => {
  expect(reachText({ web: 2, appleWallet: 1, googleWallet: 0 })).toBe(
    'Will reach 3 devices: 2 with notifications on, 1 in Apple Wallet',
  )
  expect(reachText({ web: 2, appleWallet: 1, googleWallet: 4 })).toBe(
    'Will reach 7 devices: 2 with notifications on, 1 in Apple Wallet, 4 in Google Wallet',
  )
  expect(reachText({ web: 2, appleWallet: 0, googleWallet: 0 })).toBe('Will reach 2 devices with notifications on')
  expect(reachText({ web: 0, appleWallet: 1, googleWallet: 0 })).toBe('Will reach 1 device in Apple Wallet')
  expect(reachText({ web: 0, appleWallet: 0, googleWallet: 1 })).toBe('Will reach 1 device in Google Wallet')
  expect(reachText({ web: 0, appleWallet: 0, googleWallet: 0 })).toBe('Will reach 0 devices')
})

test('the channels add up, and only those with rows are listed', () => {
  const none = { sent: 0, failed: 0, pending: 0 }
  const channels = {
    web: { sent: 2, failed: 1, pending: 0 },
    appleWallet: { sent: 1, failed: 0, pending: 3 },
    googleWallet: { sent: 4, failed: 1, pending: 1, quiet: 2 },
  }
  expect(sumChannels(channels)).toEqual({ sent: 7, failed: 2, pending: 4 })
  expect(channelsUsed(channels)).toEqual(['web', 'appleWallet', 'googleWallet'])
  expect(channelsUsed({ ...channels, web: none, googleWallet: none })).toEqual(['appleWallet'])
})
