import { sqlMigration } from './sql-migration.ts'

/*
 * Staff, locations and stamping rules (issue 20; docs/product/staff-locations-rules.md;
 * docs/decisions/044-staff-accounts.md, 045-locations.md, 046-stamping-rules.md).
 *
 * 1. Staff are users with role 'staff' and an employer (the owner who invited them; deleting the owner deletes them).
 *    `staff_name` is what the owner calls them. A pending invitation is a staff user without a password whose
 *    `invitation_expires_at` is in the future: it holds a seat. `suspended_at`: over the seats after a downgrade
 *    (cannot sign in). `removed_at`: removed by the owner; the row stays so the activity still names who stamped,
 *    and its address is free again (the e-mail is unique among users not removed).
 * 2. tariffs.staff_seats: the staff seats of each plan (Basic 2, Standard 5, Premium 20; the trial's 2 is in code).
 * 3. locations: the owner's shops (name, address, optional coordinates), removed softly so the activity keeps their
 *    names; staff_locations: where each staff member works. cards.locations_changed_at moves when the owner's
 *    locations change, and the Apple Wallet card triggers of 0010 watch it (the passes carry the locations).
 * 4. stamp_events: where (location_id) and whether the owner overrode a stamping rule (`overridden`); the actor was
 *    recorded since 0004. Indexed by actor and location for the activity's filters (and the owner's account deletion).
 * 5. cards: the stamping rules: most stamps in one scan (1–20, today's 20), a pause per pass between stamps in
 *    minutes (0: none) and a daily cap per pass (null: none).
 * Existing data: every owner stays an owner, every card gets today's behaviour (20 a scan, no pause, no cap), every
 * existing stamp event has no location and no override.
 */
const UP = /* sql */ `
alter table users drop constraint users_role_check;
alter table users add constraint users_role_check check (role in ('owner', 'admin', 'staff'));
alter table users add column employer_id uuid references users (id) on delete cascade;
alter table users add column staff_name text check (length(staff_name) between 1 and 60);
alter table users add column invitation_expires_at timestamptz;
alter table users add column suspended_at timestamptz;
alter table users add column removed_at timestamptz;
alter table users add constraint users_staff_employer_check
  check ((role = 'staff') = (employer_id is not null) and (role = 'staff') = (staff_name is not null));
create index users_employer_idx on users (employer_id, created_at) where employer_id is not null;
drop index users_email_key;
create unique index users_email_key on users (email) where removed_at is null;

alter table one_time_tokens drop constraint one_time_tokens_kind_check;
alter table one_time_tokens add constraint one_time_tokens_kind_check
  check (kind in ('email_verification', 'password_reset', 'premade_login', 'email_change', 'staff_invitation'));

alter table tariffs add column staff_seats integer not null default 2 check (staff_seats >= 0);
update tariffs set staff_seats = case tier when 1 then 2 when 2 then 5 else 20 end;

create table locations (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid not null references users (id) on delete cascade,
  name text not null check (length(name) between 1 and 60),
  address text not null check (length(address) between 1 and 200),
  latitude double precision check (latitude between -90 and 90),
  longitude double precision check (longitude between -180 and 180),
  removed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint locations_coordinates_check check ((latitude is null) = (longitude is null))
);
create index locations_owner_idx on locations (owner_id, created_at);
create trigger locations_set_updated_at before update on locations for each row execute function set_updated_at();

create table staff_locations (
  staff_id uuid not null references users (id) on delete cascade,
  location_id uuid not null references locations (id) on delete cascade,
  primary key (staff_id, location_id)
);
create index staff_locations_location_idx on staff_locations (location_id);

alter table stamp_events add column location_id uuid references locations (id) on delete set null;
alter table stamp_events add column overridden boolean not null default false;
create index stamp_events_actor_created_idx on stamp_events (actor_id, created_at);
create index stamp_events_location_created_idx on stamp_events (location_id, created_at)
  where location_id is not null;

alter table cards add column max_stamps_per_scan integer not null default 20
  constraint cards_max_stamps_per_scan_check check (max_stamps_per_scan between 1 and 20);
alter table cards add column stamp_pause_minutes integer not null default 0
  constraint cards_stamp_pause_minutes_check check (stamp_pause_minutes between 0 and 10080);
alter table cards add column daily_stamp_cap integer
  constraint cards_daily_stamp_cap_check check (daily_stamp_cap between 1 and 100);
alter table cards add column locations_changed_at timestamptz;

-- A change to the owner's located locations (one with a position added, moved or removed) is a change to every pass
-- of their cards in Apple Wallet, which carry the positions; a name, an address or a location without a position is
-- not on the pass, and pushes no device.
create function locations_touch_cards() returns trigger language plpgsql as $$
begin
  update cards set locations_changed_at = clock_timestamp()
    where user_id = case when tg_op = 'DELETE' then old.owner_id else new.owner_id end;
  return null;
end $$;
create trigger locations_touch_cards_insert after insert on locations
  for each row when (new.latitude is not null and new.removed_at is null) execute function locations_touch_cards();
create trigger locations_touch_cards_update after update on locations
  for each row when ((old.latitude, old.longitude, old.removed_at) is distinct from
                     (new.latitude, new.longitude, new.removed_at)
                     and (old.latitude is not null or new.latitude is not null))
  execute function locations_touch_cards();
create trigger locations_touch_cards_delete after delete on locations
  for each row when (old.latitude is not null and old.removed_at is null) execute function locations_touch_cards();

-- 0010's card triggers, with the locations: what a pass in Wallet shows of its card.
drop trigger cards_wallet_touch on cards;
drop trigger cards_wallet_push on cards;
create trigger cards_wallet_touch before update on cards for each row
  when ((old.title, old.business_name, old.stamps_required, old.background_color, old.text_color, old.stamp_icon,
         old.reward, old.terms, old.auto_push, old.logo_content_type, old.locations_changed_at)
        is distinct from
        (new.title, new.business_name, new.stamps_required, new.background_color, new.text_color, new.stamp_icon,
         new.reward, new.terms, new.auto_push, new.logo_content_type, new.locations_changed_at)
        or old.logo is distinct from new.logo)
  execute function cards_wallet_touch();
create trigger cards_wallet_push after update on cards for each row
  when ((old.title, old.business_name, old.stamps_required, old.background_color, old.text_color, old.stamp_icon,
         old.reward, old.terms, old.auto_push, old.logo_content_type, old.locations_changed_at)
        is distinct from
        (new.title, new.business_name, new.stamps_required, new.background_color, new.text_color, new.stamp_icon,
         new.reward, new.terms, new.auto_push, new.logo_content_type, new.locations_changed_at)
        or old.logo is distinct from new.logo)
  execute function cards_wallet_push();
`

const DOWN = /* sql */ `
drop trigger if exists cards_wallet_touch on cards;
drop trigger if exists cards_wallet_push on cards;
create trigger cards_wallet_touch before update on cards for each row
  when ((old.title, old.business_name, old.stamps_required, old.background_color, old.text_color, old.stamp_icon,
         old.reward, old.terms, old.auto_push, old.logo_content_type)
        is distinct from
        (new.title, new.business_name, new.stamps_required, new.background_color, new.text_color, new.stamp_icon,
         new.reward, new.terms, new.auto_push, new.logo_content_type)
        or old.logo is distinct from new.logo)
  execute function cards_wallet_touch();
create trigger cards_wallet_push after update on cards for each row
  when ((old.title, old.business_name, old.stamps_required, old.background_color, old.text_color, old.stamp_icon,
         old.reward, old.terms, old.auto_push, old.logo_content_type)
        is distinct from
        (new.title, new.business_name, new.stamps_required, new.background_color, new.text_color, new.stamp_icon,
         new.reward, new.terms, new.auto_push, new.logo_content_type)
        or old.logo is distinct from new.logo)
  execute function cards_wallet_push();
drop trigger if exists locations_touch_cards_insert on locations;
drop trigger if exists locations_touch_cards_update on locations;
drop trigger if exists locations_touch_cards_delete on locations;
drop function if exists locations_touch_cards();
alter table cards drop column if exists locations_changed_at, drop column if exists daily_stamp_cap,
  drop column if exists stamp_pause_minutes, drop column if exists max_stamps_per_scan;
drop index if exists stamp_events_location_created_idx;
drop index if exists stamp_events_actor_created_idx;
alter table stamp_events drop column if exists overridden, drop column if exists location_id;
drop table if exists staff_locations, locations;
alter table tariffs drop column if exists staff_seats;
delete from one_time_tokens where kind = 'staff_invitation';
alter table one_time_tokens drop constraint one_time_tokens_kind_check;
alter table one_time_tokens add constraint one_time_tokens_kind_check
  check (kind in ('email_verification', 'password_reset', 'premade_login', 'email_change'));
delete from users where role = 'staff';
drop index if exists users_email_key;
create unique index users_email_key on users (email);
drop index if exists users_employer_idx;
alter table users drop constraint if exists users_staff_employer_check;
alter table users drop column if exists removed_at, drop column if exists suspended_at,
  drop column if exists invitation_expires_at, drop column if exists staff_name, drop column if exists employer_id;
alter table users drop constraint users_role_check;
alter table users add constraint users_role_check check (role in ('owner', 'admin'));
`

export const { up, down } = sqlMigration(UP, DOWN)
