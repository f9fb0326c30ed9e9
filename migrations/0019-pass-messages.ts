import { sqlMigration } from './sql-migration.ts'

/*
 * The latest message on the holder's pass page (issue 30, item 1; docs/decisions/050-live-pass-page.md): which
 * message each holder was sent last, kept where the page and its live feed read it by key.
 *
 * - card_latest_messages: a card's newest message to all its holders (one row per card, however many holders: a
 *   broadcast to 50,000 writes one row, and moves no pass row, whose triggers would bump the owner's version once
 *   per pass).
 * - pass_latest_messages: a pass's newest message sent to it alone or to an audience it was in when it left (an
 *   automatic message, a broadcast to the inactive, …): the audience is decided at sending, so it is written then.
 *
 * A pass shows the newer of the two. Written when a message starts sending (models/pass-message.server.ts); stamp
 * and reward-earned pushes are not messages the page shows (it shows the stamps). Existing rows come along: each
 * card's newest message to all, and each pass's newest message of its own or of an audience it was sent to, as far
 * as its deliveries and wallet pushes still say.
 */
const UP = /* sql */ `
create table card_latest_messages (
  card_id uuid primary key references cards (id) on delete cascade,
  notification_id uuid not null references notifications (id) on delete cascade,
  sent_at timestamptz not null
);
create table pass_latest_messages (
  pass_id uuid primary key references passes (id) on delete cascade,
  notification_id uuid not null references notifications (id) on delete cascade,
  sent_at timestamptz not null
);
create index pass_latest_messages_notification_idx on pass_latest_messages (notification_id);
create index card_latest_messages_notification_idx on card_latest_messages (notification_id);

insert into card_latest_messages (card_id, notification_id, sent_at)
select distinct on (n.card_id) n.card_id, n.id, coalesce(n.queued_at, n.created_at)
from notifications n
where n.pass_id is null and n.audience = 'all' and n.kind not in ('stamp', 'reward')
  and n.status in ('sending', 'done')
order by n.card_id, n.queued_at desc nulls last, n.id desc;

insert into pass_latest_messages (pass_id, notification_id, sent_at)
select distinct on (sent.pass_id) sent.pass_id, sent.id, sent.at
from (
  select n.pass_id, n.id, coalesce(n.queued_at, n.created_at) as at from notifications n
  where n.pass_id is not null
    and n.kind not in ('stamp', 'reward') and n.status in ('sending', 'done')
  union all
  select a.pass_id, n.id, coalesce(n.queued_at, n.created_at) from apple_pushes a
  join notifications n on n.id = a.notification_id
  where n.pass_id is null and n.audience <> 'all'
    and n.kind not in ('stamp', 'reward') and n.status in ('sending', 'done')
  union all
  select s.pass_id, n.id, coalesce(n.queued_at, n.created_at) from deliveries d
  join push_subscriptions s on s.id = d.push_subscription_id
  join notifications n on n.id = d.notification_id
  where n.pass_id is null and n.audience <> 'all'
    and n.kind not in ('stamp', 'reward') and n.status in ('sending', 'done')
  union all
  select g.pass_id, n.id, coalesce(n.queued_at, n.created_at) from google_wallet_updates g
  join notifications n on n.id = g.notification_id
  where g.kind = 'message' and n.pass_id is null and n.audience <> 'all'
    and n.kind not in ('stamp', 'reward') and n.status in ('sending', 'done')
) sent
join passes p on p.id = sent.pass_id
order by sent.pass_id, sent.at desc, sent.id desc;
`

const DOWN = /* sql */ `
drop table if exists pass_latest_messages;
drop table if exists card_latest_messages;
`

export const { up, down } = sqlMigration(UP, DOWN)
