import { sqlMigration } from './sql-migration.ts'

/*
 * A year of insights in one read (issue 32, item 4; docs/decisions/058-insight-rollups.md). At a million events the
 * 12-month card page summed a million pass_days rows for its chart and its figures, and grouped a million events by
 * hour for its heat map. Two small tables, kept by statement triggers on the rows they sum (so every writer is
 * covered: stamping, undo, a holder's removal, the time-zone rebuild, a card's deletion), answer those sums:
 *
 * 1. card_days: per card and local day, the sums of its pass_days rows (visits, stamps, redemptions). A day moves
 *    with pass_days, so the time-zone rebuild moves it too.
 * 2. card_quarter_hours: per card and quarter of an hour (UTC, so no rebuild when the zone changes; every zone's
 *    offset is whole quarters), its visits: stamps not undone and redemptions. The heat map turns the quarters into
 *    local weekdays and hours.
 * 3. card_insight_versions: per card, a counter that moves whenever a pass_days row of a day before the owner's
 *    today changes (an undo across midnight, a removed holder, the rebuild, a late commit). The holders counted in
 *    past days (active, stamped, returning: distinct passes, which no sum gives) are computed once per counter value
 *    and reused (models/insight-holders.server.ts); today's are added live.
 *
 * Each day and quarter of a card is four rows (`slot`, from the pass): no single row of a card is updated by every
 * stamp, as DECISIONS.md asks, and the readers sum the four. The triggers add the statement's changes grouped by
 * row, in key order (two writers lock the rows they share in the same order). A row of a card being deleted is
 * skipped (its rows go with it). The back-fill brings every existing card along.
 */
const UP = /* sql */ `
create table card_days (
  card_id uuid not null references cards (id) on delete cascade,
  day date not null,
  visits integer not null default 0,
  stamps integer not null default 0,
  redemptions integer not null default 0,
  slot smallint not null,
  primary key (card_id, day, slot)
);
create table card_quarter_hours (
  card_id uuid not null references cards (id) on delete cascade,
  quarter timestamptz not null,
  visits integer not null default 0,
  slot smallint not null,
  primary key (card_id, quarter, slot)
);
create table card_insight_versions (
  card_id uuid primary key references cards (id) on delete cascade,
  past_version bigint not null default 0
);

-- Which of a card's four rows of a day (or quarter) a pass's changes go to: no single row of a card is updated by
-- every stamp (DECISIONS.md, insights "Scale"), so stamps on a busy card's passes do not all wait for one row's lock.
-- A removed holder's rows (no pass) go to the first.
create function insight_slot(pass uuid) returns smallint language sql immutable parallel safe as $$
  select coalesce(hashtext(pass::text) & 3, 0)::smallint
$$;

-- A statement's changes as arrays (a transition table exists only for its own event, and PL/pgSQL plans a statement
-- when it first runs it: each event's branch names only its own tables).
create function card_days_add() returns trigger language plpgsql as $$
declare
  ids uuid[];
  slots smallint[];
  days date[];
  visit_counts integer[];
  stamp_counts integer[];
  redemption_counts integer[];
begin
  if tg_op = 'INSERT' then
    select array_agg(card_id), array_agg(insight_slot(pass_id)), array_agg(day), array_agg(visits), array_agg(stamps),
           array_agg(redemptions)
      into ids, slots, days, visit_counts, stamp_counts, redemption_counts from new_rows;
  elsif tg_op = 'DELETE' then
    select array_agg(card_id), array_agg(insight_slot(pass_id)), array_agg(day), array_agg(-visits), array_agg(-stamps),
           array_agg(-redemptions)
      into ids, slots, days, visit_counts, stamp_counts, redemption_counts from old_rows;
  else
    select array_agg(card_id), array_agg(insight_slot(pass_id)), array_agg(day), array_agg(visits), array_agg(stamps),
           array_agg(redemptions)
      into ids, slots, days, visit_counts, stamp_counts, redemption_counts
      from (select card_id, pass_id, day, visits, stamps, redemptions from new_rows
            union all
            select card_id, pass_id, day, -visits, -stamps, -redemptions from old_rows) x;
  end if;
  if ids is null then
    return null;
  end if;
  with changes as (
    select * from unnest(ids, slots, days, visit_counts, stamp_counts, redemption_counts)
      as c (card_id, slot, day, visits, stamps, redemptions)
  ), sums as (
    select c.card_id, c.day, c.slot, sum(c.visits)::int as visits, sum(c.stamps)::int as stamps,
           sum(c.redemptions)::int as redemptions
    from changes c where exists (select 1 from cards k where k.id = c.card_id)
    group by c.card_id, c.day, c.slot
    having sum(c.visits) <> 0 or sum(c.stamps) <> 0 or sum(c.redemptions) <> 0
  )
  insert into card_days as d (card_id, day, slot, visits, stamps, redemptions)
    select card_id, day, slot, visits, stamps, redemptions from sums order by card_id, day, slot
  on conflict (card_id, day, slot) do update set visits = d.visits + excluded.visits, stamps = d.stamps + excluded.stamps,
    redemptions = d.redemptions + excluded.redemptions;
  -- A row of a day before the owner's today changed (or moved): the past holders counted for the card are stale.
  with touched as (
    select distinct t.card_id from unnest(ids, days) as t (card_id, day)
    join cards c on c.id = t.card_id join users u on u.id = c.user_id
    where t.day < (now() at time zone u.time_zone)::date
  )
  insert into card_insight_versions as v (card_id, past_version)
    select card_id, 1 from touched order by card_id
  on conflict (card_id) do update set past_version = v.past_version + 1;
  return null;
end $$;

create function card_quarter_hours_add() returns trigger language plpgsql as $$
declare
  ids uuid[];
  slots smallint[];
  instants timestamptz[];
  deltas integer[];
begin
  if tg_op = 'INSERT' then
    select array_agg(card_id), array_agg(insight_slot(pass_id)), array_agg(created_at), array_agg(1)
      into ids, slots, instants, deltas
      from new_rows where kind in ('stamp', 'redeem') and undone_at is null;
  elsif tg_op = 'DELETE' then
    select array_agg(card_id), array_agg(insight_slot(pass_id)), array_agg(created_at), array_agg(-1)
      into ids, slots, instants, deltas
      from old_rows where kind in ('stamp', 'redeem') and undone_at is null;
  else
    select array_agg(card_id), array_agg(insight_slot(pass_id)), array_agg(created_at), array_agg(delta)
      into ids, slots, instants, deltas
      from (select card_id, pass_id, created_at, 1 as delta from new_rows
            where kind in ('stamp', 'redeem') and undone_at is null
            union all
            select card_id, pass_id, created_at, -1 from old_rows
            where kind in ('stamp', 'redeem') and undone_at is null) x;
  end if;
  if ids is null then
    return null;
  end if;
  with sums as (
    select c.card_id, date_bin('15 minutes', c.created_at, timestamptz '2000-01-01 00:00:00+00') as quarter, c.slot,
           sum(c.delta)::int as visits
    from unnest(ids, slots, instants, deltas) as c (card_id, slot, created_at, delta)
    where exists (select 1 from cards k where k.id = c.card_id)
    group by 1, 2, 3 having sum(c.delta) <> 0
  )
  insert into card_quarter_hours as q (card_id, quarter, slot, visits)
    select card_id, quarter, slot, visits from sums order by card_id, quarter, slot
  on conflict (card_id, quarter, slot) do update set visits = q.visits + excluded.visits;
  return null;
end $$;

-- A trigger with transition tables has one event: three each, on the same function.
create trigger pass_days_card_days_insert after insert on pass_days
  referencing new table as new_rows for each statement execute function card_days_add();
create trigger pass_days_card_days_update after update on pass_days
  referencing old table as old_rows new table as new_rows for each statement execute function card_days_add();
create trigger pass_days_card_days_delete after delete on pass_days
  referencing old table as old_rows for each statement execute function card_days_add();
create trigger stamp_events_quarter_hours_insert after insert on stamp_events
  referencing new table as new_rows for each statement execute function card_quarter_hours_add();
create trigger stamp_events_quarter_hours_update after update on stamp_events
  referencing old table as old_rows new table as new_rows for each statement execute function card_quarter_hours_add();
create trigger stamp_events_quarter_hours_delete after delete on stamp_events
  referencing old table as old_rows for each statement execute function card_quarter_hours_add();

insert into card_days (card_id, day, slot, visits, stamps, redemptions)
  select card_id, day, insight_slot(pass_id), sum(visits), sum(stamps), sum(redemptions) from pass_days
  group by card_id, day, insight_slot(pass_id);
insert into card_quarter_hours (card_id, quarter, slot, visits)
  select card_id, date_bin('15 minutes', created_at, timestamptz '2000-01-01 00:00:00+00'), insight_slot(pass_id),
         count(*)
  from stamp_events where kind in ('stamp', 'redeem') and undone_at is null
  group by 1, 2, 3;
`

const DOWN = /* sql */ `
drop trigger if exists pass_days_card_days_insert on pass_days;
drop trigger if exists pass_days_card_days_update on pass_days;
drop trigger if exists pass_days_card_days_delete on pass_days;
drop trigger if exists stamp_events_quarter_hours_insert on stamp_events;
drop trigger if exists stamp_events_quarter_hours_update on stamp_events;
drop trigger if exists stamp_events_quarter_hours_delete on stamp_events;
drop function if exists card_days_add(), card_quarter_hours_add(), insight_slot(uuid);
drop table if exists card_insight_versions, card_quarter_hours, card_days;
`

export const { up, down } = sqlMigration(UP, DOWN)
