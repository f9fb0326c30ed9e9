import webpush from 'web-push'
import { QueryTypes } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { getEnv } from '#app/server/env.server.ts'

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
    if (env.VAPID_PUBLIC_KEY && env.VAPID_PRIVATE_KEY) return { publicKey: env.VAPID_PUBLIC_KEY, privateKey: env.VAPID_PRIVATE_KEY, subject }
    const read = () =>
      getSequelize().query<{ value: { publicKey: string; privateKey: string } }>(`select value from settings where key = :key`, {
        replacements: { key: SETTING },
        type: QueryTypes.SELECT,
      })
    // Read first: once the pair exists (server.ts makes it at start), a page that needs the public key only reads.
    let [row] = await read()
    if (!row) {
      const generated = webpush.generateVAPIDKeys()
      await getSequelize().query(`insert into settings (key, value) values (:key, :value) on conflict (key) do nothing`, {
        replacements: { key: SETTING, value: JSON.stringify(generated) },
      })
      ;[row] = await read()
    }
    return { publicKey: row!.value.publicKey, privateKey: row!.value.privateKey, subject }
  })().catch((error) => {
    loaded = undefined
    throw error
  })
  return loaded
}
