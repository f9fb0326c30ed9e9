import { sqlMigration } from './sql-migration.ts'

/*
 * New holders per local day in card_days (issue 32, item 4; docs/decisions/058-insight-rollups.md). The card page
 * counted a year of passes by join time for its figures and its chart (about 100,000 passes: 0.2 s at a 12-month
 * range). card_days.joins holds them per card, local day and slot, kept by triggers on passes:
 *
 * - a pass added or removed (statement triggers: a bulk copy is one statement) adds or takes one on the local day of
 *   its join in the owner's zone; a pass of a card being deleted is skipped (its rows go with the card);
 * - a pass whose join time or card changes (row trigger, only when one of them does: every stamp updates passes)
 *   moves its one;
 * - rebuild_card_joins(card) counts a card's joins again in the owner's current zone: the time-zone rebuild calls it
 *   (app/services/insights/time-zone-rebuild.server.ts), as it remakes pass_days.
 *
 * Joins are not visits: they leave the past holders' counts (card_insight_versions) alone. The back-fill brings every
 * existing pass along.
 */
const UP = /* sql */ `
alter table card_days add column joins integer not null default 0;

-- Adds the changes (card, slot, day, +1/-1) to card_days, in key order (two writers lock shared rows in one order).
create function card_days_add_joins(ids uuid[], slots smallint[], days date[], deltas integer[]) returns void
language sql as $$
  insert into card_days as d (card_id, day, slot, joins)
    select c.card_id, c.day, c.slot, sum(c.delta)::int
    from unnest(ids, slots, days, deltas) as c (card_id, slot, day, delta)
    group by c.card_id, c.day, c.slot having sum(c.delta) <> 0
    order by c.card_id, c.day, c.slot
  on conflict (card_id, day, slot) do update set joins = d.joins + excluded.joins
$$;

-- The join of a pass: its card's owner's local day. A card already deleted (a cascade) has no owner: no row.
create function card_days_joins() returns trigger language plpgsql as $$
declare
  ids uuid[];
  slots smallint[];
  days date[];
  deltas integer[];
begin
  if tg_op = 'INSERT' then
    select array_agg(p.card_id), array_agg(insight_slot(p.id)), array_agg((p.created_at at time zone u.time_zone)::date),
           array_agg(1)
      into ids, slots, days, deltas
      from new_rows p join cards c on c.id = p.card_id join users u on u.id = c.user_id;
  elsif tg_op = 'DELETE' then
    select array_agg(p.card_id), array_agg(insight_slot(p.id)), array_agg((p.created_at at time zone u.time_zone)::date),
           array_agg(-1)
      into ids, slots, days, deltas
      from old_rows p join cards c on c.id = p.card_id join users u on u.id = c.user_id;
  else
    select array_agg(x.card_id), array_agg(insight_slot(x.id)), array_agg((x.created_at at time zone u.time_zone)::date),
           array_agg(x.delta)
      into ids, slots, days, deltas
      from (select old.card_id, old.id, old.created_at, -1 as delta
            union all
            select new.card_id, new.id, new.created_at, 1) x
      join cards c on c.id = x.card_id join users u on u.id = c.user_id;
  end if;
  if ids is not null then
    perform card_days_add_joins(ids, slots, days, deltas);
  end if;
  return null;
end $$;

create trigger passes_card_days_joins_insert after insert on passes
  referencing new table as new_rows for each statement execute function card_days_joins();
create trigger passes_card_days_joins_delete after delete on passes
  referencing old table as old_rows for each statement execute function card_days_joins();
create trigger passes_card_days_joins_update after update of created_at, card_id on passes
  for each row when (old.created_at is distinct from new.created_at or old.card_id is distinct from new.card_id)
  execute function card_days_joins();

-- A card's joins counted again in its owner's current zone. The caller holds the card's row 'for update', which a
-- pass being added (its foreign key's 'key share') waits for and which waits for one: no join is missed or doubled.
create function rebuild_card_joins(p_card uuid) returns void language plpgsql as $$
declare
  tz text;
begin
  select u.time_zone into tz from cards c join users u on u.id = c.user_id where c.id = p_card;
  update card_days set joins = 0 where card_id = p_card and joins <> 0;
  insert into card_days as d (card_id, day, slot, joins)
    select p_card, (p.created_at at time zone tz)::date, insight_slot(p.id), count(*)
    from passes p where p.card_id = p_card
    group by 2, 3 order by 2, 3
  on conflict (card_id, day, slot) do update set joins = excluded.joins;
end $$;

insert into card_days as d (card_id, day, slot, joins)
  select p.card_id, (p.created_at at time zone u.time_zone)::date, insight_slot(p.id), count(*)
  from passes p join cards c on c.id = p.card_id join users u on u.id = c.user_id
  group by 1, 2, 3
on conflict (card_id, day, slot) do update set joins = excluded.joins;
`

const DOWN = /* sql */ `
drop trigger if exists passes_card_days_joins_insert on passes;
drop trigger if exists passes_card_days_joins_delete on passes;
drop trigger if exists passes_card_days_joins_update on passes;
drop function if exists card_days_joins(), card_days_add_joins(uuid[], smallint[], date[], integer[]),
  rebuild_card_joins(uuid);
alter table card_days drop column if exists joins;
`

export const { up, down } = sqlMigration(UP, DOWN)
