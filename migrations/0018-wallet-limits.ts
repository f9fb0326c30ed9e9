import { sqlMigration } from './sql-migration.ts'

/*
 * Wallets on real devices (issue 30; docs/decisions/053-wallets-on-devices.md):
 *
 * 1. At most 10 Apple Wallet devices per pass (models/apple-registration.server.ts keeps it from now on): a pass
 *    registered to more keeps its 10 newest registrations; a device left with none is forgotten by the hourly
 *    housekeeping, as any other.
 * 2. The Apple pass changed its look (the message field from the start, the business name on the front, sharing off,
 *    a taller strip): every card held in Wallet gets a new modification time and each of its devices one push, as a
 *    design change does (migration 0010's triggers), so passes already on phones fetch the new pass.
 * 3. Google Wallet: messages to one pass go one at a time (the claim waits for an earlier one still pending), and the
 *    newest messages sent to a pass are read to keep its object under Google's 10 messages: two indexes for that.
 */
const UP = /* sql */ `
delete from apple_registrations r using (
  select device_id, pass_id,
         row_number() over (partition by pass_id order by created_at desc, device_id desc) as newest
  from apple_registrations
) ranked
where ranked.device_id = r.device_id and ranked.pass_id = r.pass_id and ranked.newest > 10;

with held as (
  select distinct p.card_id from passes p join apple_registrations r on r.pass_id = p.id
), touched as (
  update cards c set wallet_modified_at = wallet_next_time(greatest(c.wallet_modified_at,
    coalesce((select max(p.wallet_modified_at) from passes p where p.card_id = c.id), c.wallet_modified_at)))
  from held where c.id = held.card_id
  returning c.id
)
insert into apple_pushes (device_id, push_token, pass_id)
select distinct on (d.id) d.id, d.push_token, p.id
from touched t join passes p on p.card_id = t.id join apple_registrations r on r.pass_id = p.id
  join apple_devices d on d.id = r.device_id
order by d.id;

create index google_wallet_updates_pending_messages_idx on google_wallet_updates (pass_id, id)
  where status = 'pending' and kind = 'message';
create index google_wallet_updates_sent_messages_idx on google_wallet_updates (pass_id, sent_at)
  where status = 'sent' and kind = 'message';
`

// The registrations trimmed and the pushes sent cannot come back (nor need to).
const DOWN = /* sql */ `
drop index if exists google_wallet_updates_pending_messages_idx;
drop index if exists google_wallet_updates_sent_messages_idx;
`

export const { up, down } = sqlMigration(UP, DOWN)
