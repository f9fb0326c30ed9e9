import { sqlMigration } from './sql-migration.ts'

/*
 * Insights, holders and exports (issue 18; docs/product/insights-and-exports.md;
 * docs/decisions/039-insights-rows.md).
 *
 * 1. users.time_zone: the business's IANA time zone; days, charts and "this month" use it. Existing owners get UTC
 *    until they choose.
 * 2. stamp_events.undone_at: an undo marks the stamp it takes back, so a visit is a stamp or a redemption that is not
 *    undone, wherever it is counted (per day, per hour, a holder's last visit).
 * 3. passes.last_visit_at: the holder's latest visit, their join time when they have none (the holders page sorts and
 *    filters 'inactive 30+ days' on it). Set by the statement that records the event (models/stamping.server.ts).
 * 4. pass_days: per pass and local day (in the owner's time zone when the event happened) its visits, stamps and
 *    redemptions. pass_rounds: per pass and round (a round ends with its redemption) its first stamp, the stamp that
 *    earned the reward and the redemption. A trigger on stamp_events keeps both in the transaction that records the
 *    event, so every writer (owner, admin, later staff) is covered; figures are sums and medians over these small
 *    rows, and no row per card is touched by every stamp. A holder who removes their card leaves their rows behind
 *    without a pass (as their stamp events stay): stamps count, holders do not.
 * 5. Indexes for the holders page (sorted by last visit or stamps, new holders per day), the stamps export, and a
 *    holder's history (the messages that reached their pass, by channel).
 * 6. rebuild_pass_days(card, passes): pass_days made anew from the events in the owner's current time zone; the job
 *    that follows a change of time zone calls it a chunk of passes at a time (app/services/insights/).
 * The back-fill at the end brings today's history along (every owner is on UTC here).
 */
const UP = /* sql */ `
alter table users add column time_zone text not null default 'UTC'
  check (length(time_zone) between 1 and 64);

alter table stamp_events add column undone_at timestamptz;
alter table passes add column last_visit_at timestamptz not null default now();

create table pass_days (
  pass_id uuid references passes (id) on delete set null,
  card_id uuid not null references cards (id) on delete cascade,
  day date not null,
  visits integer not null default 0,
  stamps integer not null default 0,
  redemptions integer not null default 0
);
-- Unique, not a primary key: a removed holder's rows keep no pass (nulls are distinct).
create unique index pass_days_pass_day_key on pass_days (pass_id, day);
create index pass_days_card_day_idx on pass_days (card_id, day) include (pass_id, visits, stamps, redemptions);

create table pass_rounds (
  pass_id uuid references passes (id) on delete set null,
  card_id uuid not null references cards (id) on delete cascade,
  round integer not null check (round >= 0),
  first_stamp_at timestamptz,
  earned_at timestamptz,
  redeemed_at timestamptz
);
create unique index pass_rounds_pass_round_key on pass_rounds (pass_id, round);
create index pass_rounds_card_earned_idx on pass_rounds (card_id, earned_at) include (first_stamp_at)
  where earned_at is not null;

-- The holders page: sorted by last visit or stamps, filtered by inactivity; new holders per day; the stamps export.
create index passes_card_last_visit_idx on passes (card_id, last_visit_at, id);
create index passes_card_stamps_idx on passes (card_id, stamps, id);
create index passes_card_created_idx on passes (card_id, created_at);
create index stamp_events_card_id_idx on stamp_events (card_id, id);
-- A holder's history: the messages that reached their pass, by each channel's rows of that pass.
create index deliveries_push_subscription_id_idx on deliveries (push_subscription_id)
  where push_subscription_id is not null;
create index notifications_pass_id_idx on notifications (pass_id) where pass_id is not null;
create index apple_pushes_pass_id_idx on apple_pushes (pass_id) where notification_id is not null;
create index google_wallet_updates_pass_message_idx on google_wallet_updates (pass_id) where kind = 'message';

create function stamp_events_insights() returns trigger language plpgsql as $$
declare
  tz text;
  pass record;
  undone record;
begin
  if new.pass_id is null then
    return null;
  end if;
  -- The owner's zone, and the pass as the statement that recorded the event left it (stamping changes it in the
  -- same statement): one lookup on every stamp.
  select u.time_zone, p.stamps, p.rewards_redeemed, c.stamps_required into pass
    from passes p join cards c on c.id = p.card_id join users u on u.id = c.user_id where p.id = new.pass_id;
  tz := pass.time_zone;
  if new.kind = 'undo' then
    -- An undo takes back the pass's newest stamp (stamping allows it only when that is the newest event): that stamp's
    -- day loses the visit and the stamps, wherever midnight fell between the two.
    update stamp_events s set undone_at = new.created_at
      where s.id = (select e.id from stamp_events e
                    where e.pass_id = new.pass_id and e.id < new.id and e.kind = 'stamp' and e.undone_at is null
                    order by e.id desc limit 1)
      returning s.created_at, s.count into undone;
    if found then
      update pass_days set visits = visits - 1, stamps = stamps - undone.count
        where pass_id = new.pass_id and day = (undone.created_at at time zone tz)::date;
    end if;
    update pass_rounds set
        earned_at = case when pass.stamps >= pass.stamps_required then earned_at end,
        first_stamp_at = case when pass.stamps > 0 then first_stamp_at end
      where pass_id = new.pass_id and round = pass.rewards_redeemed;
    return null;
  end if;
  insert into pass_days (pass_id, card_id, day, visits, stamps, redemptions)
    values (new.pass_id, new.card_id, (new.created_at at time zone tz)::date, 1,
            case when new.kind = 'stamp' then new.count else 0 end, case when new.kind = 'redeem' then 1 else 0 end)
    on conflict (pass_id, day) do update set visits = pass_days.visits + 1,
      stamps = pass_days.stamps + excluded.stamps, redemptions = pass_days.redemptions + excluded.redemptions;
  if new.kind = 'stamp' then
    insert into pass_rounds (pass_id, card_id, round, first_stamp_at, earned_at)
      values (new.pass_id, new.card_id, pass.rewards_redeemed, new.created_at,
              case when pass.stamps >= pass.stamps_required then new.created_at end)
      on conflict (pass_id, round) do update set
        first_stamp_at = coalesce(pass_rounds.first_stamp_at, excluded.first_stamp_at),
        earned_at = coalesce(pass_rounds.earned_at, excluded.earned_at);
  else
    -- A redemption closes the round it counted (the pass's rewards already include it). A reward earned without a
    -- stamp (the owner lowered the stamps required) is earned when redeemed.
    insert into pass_rounds (pass_id, card_id, round, first_stamp_at, earned_at, redeemed_at)
      values (new.pass_id, new.card_id, greatest(pass.rewards_redeemed - 1, 0), new.created_at, new.created_at,
              new.created_at)
      on conflict (pass_id, round) do update set redeemed_at = excluded.redeemed_at,
        earned_at = coalesce(pass_rounds.earned_at, excluded.earned_at),
        first_stamp_at = coalesce(pass_rounds.first_stamp_at, excluded.first_stamp_at);
  end if;
  return null;
end $$;
create trigger stamp_events_insights after insert on stamp_events for each row execute function stamp_events_insights();

-- pass_days of some passes of a card (p_pass_ids), or of its removed holders (null), made anew from the events in the
-- owner's current time zone. The caller locks those passes first, so no stamp on them commits unseen meanwhile.
create function rebuild_pass_days(p_card uuid, p_pass_ids uuid[]) returns void language plpgsql as $$
declare
  tz text;
begin
  select u.time_zone into tz from cards c join users u on u.id = c.user_id where c.id = p_card;
  if p_pass_ids is null then
    delete from pass_days where card_id = p_card and pass_id is null;
    insert into pass_days (pass_id, card_id, day, visits, stamps, redemptions)
      select null, p_card, (e.created_at at time zone tz)::date, count(*),
             coalesce(sum(e.count) filter (where e.kind = 'stamp'), 0), count(*) filter (where e.kind = 'redeem')
      from stamp_events e
      where e.card_id = p_card and e.pass_id is null and e.kind in ('stamp', 'redeem') and e.undone_at is null
      group by 3;
  else
    delete from pass_days where pass_id = any(p_pass_ids);
    insert into pass_days (pass_id, card_id, day, visits, stamps, redemptions)
      select e.pass_id, p_card, (e.created_at at time zone tz)::date, count(*),
             coalesce(sum(e.count) filter (where e.kind = 'stamp'), 0), count(*) filter (where e.kind = 'redeem')
      from stamp_events e
      where e.pass_id = any(p_pass_ids) and e.kind in ('stamp', 'redeem') and e.undone_at is null
      group by e.pass_id, 3;
  end if;
end $$;

-- Back-fill. Stamping allows an undo only when the pass's newest event is a stamp: an undo's previous event is the
-- stamp it took back.
update stamp_events s set undone_at = u.created_at
from (select id, kind, created_at, lag(id) over w as previous_id, lag(kind) over w as previous_kind
      from stamp_events where pass_id is not null window w as (partition by pass_id order by id)) u
where u.kind = 'undo' and u.previous_kind = 'stamp' and s.id = u.previous_id;

update passes p set last_visit_at = coalesce(
  (select max(e.created_at) from stamp_events e
   where e.pass_id = p.id and e.kind in ('stamp', 'redeem') and e.undone_at is null),
  p.created_at);

insert into pass_days (pass_id, card_id, day, visits, stamps, redemptions)
select e.pass_id, e.card_id, (e.created_at at time zone 'UTC')::date, count(*),
       coalesce(sum(e.count) filter (where e.kind = 'stamp'), 0), count(*) filter (where e.kind = 'redeem')
from stamp_events e
where e.kind in ('stamp', 'redeem') and e.undone_at is null
group by e.pass_id, e.card_id, 3;

-- Rounds replayed from each pass's events: a round is the events up to and including a redemption; its reward was
-- earned by the stamp that brought its stamps to the card's stamps required (else at its redemption). A removed
-- holder's events cannot be told apart by pass: they have no rounds.
insert into pass_rounds (pass_id, card_id, round, first_stamp_at, earned_at, redeemed_at)
select r.pass_id, r.card_id, r.round,
       coalesce(min(r.created_at) filter (where r.kind = 'stamp'), min(r.created_at)),
       coalesce(min(r.created_at) filter (where r.kind = 'stamp' and r.stamps_so_far >= c.stamps_required),
                min(r.created_at) filter (where r.kind = 'redeem')),
       min(r.created_at) filter (where r.kind = 'redeem')
from (
  select ev.*, sum(case when ev.kind = 'stamp' then ev.count else 0 end)
                 over (partition by ev.pass_id, ev.round order by ev.id) as stamps_so_far
  from (
    select e.id, e.pass_id, e.card_id, e.kind, e.count, e.created_at,
           (count(*) filter (where e.kind = 'redeem')
              over (partition by e.pass_id order by e.id rows between unbounded preceding and 1 preceding))::int as round
    from stamp_events e
    where e.pass_id is not null and (e.kind = 'redeem' or (e.kind = 'stamp' and e.undone_at is null))
  ) ev
) r join cards c on c.id = r.card_id
group by r.pass_id, r.card_id, r.round;

-- The heat map reads a card's visits in a range from this index alone (after the back-fill, which it would slow).
-- Not a partial index of visits: the planner would take one for a pass's last visit and scan a card's visits.
drop index stamp_events_card_created_idx;
create index stamp_events_card_created_idx on stamp_events (card_id, created_at) include (kind, undone_at);
`

const DOWN = /* sql */ `
drop index if exists stamp_events_card_created_idx;
create index stamp_events_card_created_idx on stamp_events (card_id, created_at);
drop trigger if exists stamp_events_insights on stamp_events;
drop function if exists stamp_events_insights(), rebuild_pass_days(uuid, uuid[]);
drop table if exists pass_rounds, pass_days;
drop index if exists passes_card_last_visit_idx, passes_card_stamps_idx, passes_card_created_idx,
  stamp_events_card_id_idx, deliveries_push_subscription_id_idx,
  notifications_pass_id_idx, apple_pushes_pass_id_idx, google_wallet_updates_pass_message_idx;
alter table passes drop column if exists last_visit_at;
alter table stamp_events drop column if exists undone_at;
alter table users drop column if exists time_zone;
`

export const { up, down } = sqlMigration(UP, DOWN)
