import webpush from 'web-push'
import { getEnv } from '#app/server/env.server.ts'
import { readSetting, storeSettingOnce } from '#models/setting.server.ts'

export type VapidKeys = { publicKey: string; privateKey: string; subject: string }

const SETTING = 'vapid_keys'
let loaded: Promise<VapidKeys> | undefined

/** `mailto:` and the address of MAIL_FROM ("Stampwise <hello@example.com>" → mailto:hello@example.com). */
export function vapidSubject(mailFrom: string) {
  const address = /<([^>]+)>/.exec(mailFrom)?.[1] ?? mailFrom
  return `mailto:${address.trim()}`
}

/**
 * The Web Push (VAPID) key pair: VAPID_PUBLIC_KEY/VAPID_PRIVATE_KEY when set, else a pair generated once and kept in
 * the settings table, so every process and every restart signs with the same key (subscriptions are bound to it).
 * Two processes generating at once keep the first one stored.
 */
export function getVapidKeys(): Promise<VapidKeys> {
  loaded ??= (async () => {
    const env = getEnv()
    const subject = vapidSubject(env.MAIL_FROM)
    if (env.VAPID_PUBLIC_KEY && env.VAPID_PRIVATE_KEY)
      return { publicKey: env.VAPID_PUBLIC_KEY, privateKey: env.VAPID_PRIVATE_KEY, subject }
    const read = () => readSetting<{ publicKey: string; privateKey: string }>(SETTING)
    // Read first: once the pair exists (server.ts makes it at start), a page that needs the public key only reads.
    let stored = await read()
    if (!stored) {
      await storeSettingOnce(SETTING, webpush.generateVAPIDKeys())
      stored = await read()
    }
    return { publicKey: stored!.publicKey, privateKey: stored!.privateKey, subject }
  })().catch((error) => {
    loaded = undefined
    throw error
  })
  return loaded
}
