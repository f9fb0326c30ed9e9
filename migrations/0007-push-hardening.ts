import { QueryTypes } from 'sequelize'
import { type Migration } from './sql-migration.ts'

/*
 * Push hardening after the outside review (issue 14; docs/product/hardening.md "Push endpoints" and
 * docs/product/automations.md; docs/decisions/024-push-endpoints-and-automatic-push-limits.md).
 *
 * 1. Subscriptions whose endpoint is not in its normal form, or not on a push service, are removed: they were
 *    saved while the check read the address with one parser and web-push sent with another
 *    (`https://localhost{.push.apple.com/x` went to localhost:443). The rule is written out here as it stood when
 *    this migration was made (app/utils/push-subscription.ts may change later; a migration must not).
 * 2. A pass remembers its last stamp push and the round whose reward was pushed, so a stamp-undo loop sends no
 *    more; existing passes take both from the pushes already made.
 */

const KNOWN_PUSH_HOSTS = ['fcm.googleapis.com', 'android.googleapis.com', 'updates.push.services.mozilla.com']
const KNOWN_PUSH_HOST_SUFFIXES = ['.push.apple.com', '.notify.windows.com']
const BATCH = 5000

function keepsEndpoint(endpoint: string, allowedHosts: string[]): boolean {
  if (!URL.canParse(endpoint)) return false
  const url = new URL(endpoint)
  if (url.href !== endpoint || url.protocol !== 'https:' || url.username || url.password) return false
  if (!/^[a-z0-9.-]+$/.test(url.hostname)) return false
  if (allowedHosts.includes(url.port ? `${url.hostname}:${url.port}` : url.hostname)) return true
  if (url.port) return false
  return (
    KNOWN_PUSH_HOSTS.includes(url.hostname) || KNOWN_PUSH_HOST_SUFFIXES.some((suffix) => url.hostname.endsWith(suffix))
  )
}

const ADD_PUSH_LIMITS = /* sql */ `
alter table passes
  add column if not exists stamp_push_at timestamptz,
  add column if not exists reward_push_round integer;

-- Only a stamp push of the last 10 minutes still limits the next one (notifications_queued_at_idx finds them).
update passes p set stamp_push_at = n.at
from (select pass_id, max(queued_at) as at from notifications
      where kind = 'stamp' and pass_id is not null and queued_at > now() - interval '10 minutes' group by pass_id) n
where p.id = n.pass_id;

-- A reward pushed after the pass's last redemption belongs to the round it is in now.
update passes p set reward_push_round = p.rewards_redeemed
from (select pass_id, max(created_at) as at from notifications where kind = 'reward' and pass_id is not null group by pass_id) r
where p.id = r.pass_id
  and r.at > coalesce((select max(e.created_at) from stamp_events e where e.pass_id = p.id and e.kind = 'redeem'), '-infinity');
`

export const up: Migration = async ({ context: { sequelize, transaction } }) => {
  // The same list the app reads (app/server/env.server.ts): hosts allowed beside the known push services.
  const allowedHosts = (process.env.PUSH_ALLOWED_HOSTS ?? '')
    .split(',')
    .map((host) => host.trim().toLowerCase())
    .filter(Boolean)
  let after = '00000000-0000-0000-0000-000000000000'
  for (;;) {
    const rows = await sequelize.query<{ id: string; endpoint: string }>(
      `select id, endpoint from push_subscriptions where id > :after order by id limit :limit`,
      { replacements: { after, limit: BATCH }, type: QueryTypes.SELECT, transaction },
    )
    if (rows.length === 0) break
    const refused = rows.filter((row) => !keepsEndpoint(row.endpoint, allowedHosts)).map((row) => row.id)
    if (refused.length)
      await sequelize.query(`delete from push_subscriptions where id in (:refused)`, {
        replacements: { refused },
        transaction,
      })
    after = rows.at(-1)!.id
  }
  await sequelize.query(ADD_PUSH_LIMITS, { transaction })
}

// Removed subscriptions cannot come back (the devices subscribe again on their next visit); the columns go.
export const down: Migration = async ({ context: { sequelize, transaction } }) => {
  await sequelize.query(
    `alter table passes drop column if exists stamp_push_at, drop column if exists reward_push_round`,
    { transaction },
  )
}
