import { sqlMigration } from './sql-migration.ts'

/*
 * Automatic and scheduled messages (issue 19; docs/product/automations.md;
 * docs/decisions/042-automatic-messages.md, 043-scheduled-broadcasts-and-audiences.md).
 *
 * 1. card_automations: per card and kind, whether the owner turned the message on, its words and, for the two that
 *    wait, after how many days. A card without a row for a kind uses the defaults (app/utils/automations.ts): every
 *    kind off except 'reward earned', which is today's reward push. `enabled_at` is when the owner last turned it on:
 *    a time-based message goes only for occasions due after that, so turning one on never floods every holder.
 * 2. cards: quiet hours (minutes after local midnight in the owner's time zone; start = end means none) and the
 *    caps per holder (at most 1 a day and 3 a week; the owner may lower them). `auto_push` stays the stamp push.
 * 3. notifications: new kinds (the automatic messages; 'reward' is 'reward earned'), new statuses ('scheduled': a
 *    row with its due time, 'cancelled', 'skipped' with its reason: over a cap, the plan ended, no quota left), the
 *    audience of a broadcast, and `occasion`: the key of one holder's occasion ('welcome', 'one_to_go:3', …), unique
 *    per pass, so each holder gets each message once per occasion however many processes run the schedule.
 * 4. Existing data: cards whose owner turned automatic pushes off had no reward push either; they get a 'reward
 *    earned' row that is off, with the words the push had. Every other card keeps its reward push (the default).
 */
const UP = /* sql */ `
create table card_automations (
  card_id uuid not null references cards (id) on delete cascade,
  kind text not null check (kind in ('welcome', 'one_to_go', 'reward_earned', 'reward_waiting', 'we_miss_you')),
  enabled boolean not null default false,
  title text not null check (length(title) between 1 and 50),
  body text not null check (length(body) between 1 and 180),
  days integer check (days between 1 and 365),
  enabled_at timestamptz,
  updated_at timestamptz not null default now(),
  primary key (card_id, kind),
  check ((kind in ('reward_waiting', 'we_miss_you')) = (days is not null))
);

alter table cards
  add column quiet_start smallint not null default 1260 check (quiet_start between 0 and 1439),
  add column quiet_end smallint not null default 540 check (quiet_end between 0 and 1439),
  add column automatic_daily_cap smallint not null default 1 check (automatic_daily_cap between 0 and 1),
  add column automatic_weekly_cap smallint not null default 3 check (automatic_weekly_cap between 0 and 3);

alter table notifications drop constraint notifications_kind_check;
alter table notifications add constraint notifications_kind_check
  check (kind in ('message', 'stamp', 'reward', 'welcome', 'one_to_go', 'reward_waiting', 'we_miss_you'));
alter table notifications drop constraint notifications_status_check;
alter table notifications add constraint notifications_status_check
  check (status in ('draft', 'scheduled', 'queued', 'sending', 'done', 'failed', 'cancelled', 'skipped'));
alter table notifications
  add column scheduled_for timestamptz,
  add column audience text not null default 'all'
    check (audience in ('all', 'inactive', 'one_to_go', 'reward_waiting')),
  add column occasion text check (length(occasion) between 1 and 100),
  add column skipped_reason text check (skipped_reason in ('daily_cap', 'weekly_cap', 'plan_ended', 'no_quota')),
  add constraint notifications_scheduled_for_check check (status <> 'scheduled' or scheduled_for is not null),
  add constraint notifications_skipped_has_reason_check check ((status = 'skipped') = (skipped_reason is not null));

-- Once per holder and occasion, across processes: the second insert of an occasion does nothing.
create unique index notifications_occasion_idx on notifications (pass_id, occasion) where occasion is not null;
-- The scheduler's due rows, and the scheduled list of a card.
create index notifications_scheduled_idx on notifications (scheduled_for) where status = 'scheduled';
-- The caps: a holder's automatic messages that went out, by time.
create index notifications_pass_automatic_idx on notifications (pass_id, queued_at)
  where kind in ('welcome', 'one_to_go', 'reward_waiting', 'we_miss_you');

insert into card_automations (card_id, kind, enabled, title, body)
select c.id, 'reward_earned', false,
       left(coalesce(nullif(c.business_name, ''), nullif(c.title, ''), 'Stampwise'), 50),
       left('Reward earned: ' || coalesce(nullif(c.reward, ''), 'your reward'), 180)
from cards c where not c.auto_push;
`

const DOWN = /* sql */ `
drop index if exists notifications_occasion_idx, notifications_scheduled_idx, notifications_pass_automatic_idx;
delete from notifications where kind not in ('message', 'stamp', 'reward')
  or status in ('scheduled', 'cancelled', 'skipped');
alter table notifications
  drop constraint if exists notifications_scheduled_for_check,
  drop constraint if exists notifications_skipped_has_reason_check,
  drop column if exists scheduled_for, drop column if exists audience, drop column if exists occasion,
  drop column if exists skipped_reason;
alter table notifications drop constraint notifications_status_check;
alter table notifications add constraint notifications_status_check
  check (status in ('draft', 'queued', 'sending', 'done', 'failed'));
alter table notifications drop constraint notifications_kind_check;
alter table notifications add constraint notifications_kind_check check (kind in ('message', 'stamp', 'reward'));
alter table cards drop column if exists quiet_start, drop column if exists quiet_end,
  drop column if exists automatic_daily_cap, drop column if exists automatic_weekly_cap;
drop table if exists card_automations;
`

export const { up, down } = sqlMigration(UP, DOWN)
