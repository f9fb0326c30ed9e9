import { sqlMigration } from './sql-migration.ts'

/*
 * Apple Wallet (issue 16; docs/product/wallets.md; docs/decisions/036-apple-wallet-updates.md).
 *
 * 1. Modification times. A device asks for the serials changed since a tag and fetches a pass with
 *    If-Modified-Since, both at one-second resolution: each change moves a time forward by at least one second, so a
 *    stamp and its undo in the same second never leave a device on a 304. A pass's time is the later of its own
 *    (stamps, rewards) and its card's (design, messages); a bump goes past both. Triggers keep them, so every path
 *    that stamps or edits a card (owner, onboarding, admin, staff later) moves them without remembering to.
 * 2. Devices and registrations, as Apple's web service protocol names them. A registration names its pass without
 *    a foreign key: a deleted card's passes are voided first (apple_voided_passes keeps the voided pass to serve),
 *    and their devices must still be told and still fetch it.
 * 3. apple_pushes: one row per APNs push to a device, sent by the jobs with leases and retries like web push's
 *    deliveries; a message's rows name it, so its history counts Apple Wallet devices. The triggers queue the rows of
 *    a stamp or a design change in the transaction that made it: a crash cannot lose one.
 */
const UP = /* sql */ `
alter table cards add column wallet_modified_at timestamptz not null default date_trunc('second', now());
alter table passes add column wallet_modified_at timestamptz not null default date_trunc('second', now());

create table apple_devices (
  id text primary key check (id ~ '^[A-Za-z0-9._-]{1,128}$'),
  push_token text not null check (push_token ~ '^[0-9A-Fa-f]{1,200}$'),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create trigger apple_devices_set_updated_at before update on apple_devices
  for each row execute function set_updated_at();

create table apple_registrations (
  device_id text not null references apple_devices (id) on delete cascade,
  pass_id uuid not null,
  created_at timestamptz not null default now(),
  primary key (device_id, pass_id)
);
create index apple_registrations_pass_id_idx on apple_registrations (pass_id);

create table apple_voided_passes (
  pass_id uuid primary key,
  pkpass bytea not null,
  modified_at timestamptz not null,
  created_at timestamptz not null default now()
);

create table apple_pushes (
  id bigserial primary key,
  device_id text references apple_devices (id) on delete set null,
  push_token text not null,
  pass_id uuid,
  notification_id uuid references notifications (id) on delete cascade,
  status text not null default 'pending' check (status in ('pending', 'sent', 'failed', 'gone')),
  attempts integer not null default 0 check (attempts >= 0),
  last_error text,
  next_attempt_at timestamptz,
  lease_until timestamptz,
  sent_at timestamptz,
  created_at timestamptz not null default now()
);
create index apple_pushes_pending_idx on apple_pushes (id) where status = 'pending';
create index apple_pushes_notification_id_idx on apple_pushes (notification_id) where notification_id is not null;

-- The next modification time after 'after': now to the second, or one second past it, whichever is later.
create function wallet_next_time(after timestamptz) returns timestamptz language sql volatile as $$
  select greatest(date_trunc('second', clock_timestamp()), after + interval '1 second')
$$;

create function passes_wallet_touch() returns trigger language plpgsql as $$
begin
  new.wallet_modified_at := wallet_next_time(greatest(old.wallet_modified_at,
    (select c.wallet_modified_at from cards c where c.id = new.card_id)));
  return new;
end $$;
create trigger passes_wallet_touch before update of stamps, rewards_redeemed on passes for each row
  when (old.stamps is distinct from new.stamps or old.rewards_redeemed is distinct from new.rewards_redeemed)
  execute function passes_wallet_touch();

create function passes_wallet_push() returns trigger language plpgsql as $$
begin
  insert into apple_pushes (device_id, push_token, pass_id)
  select d.id, d.push_token, new.id from apple_registrations r join apple_devices d on d.id = r.device_id
  where r.pass_id = new.id;
  return null;
end $$;
create trigger passes_wallet_push after update of stamps, rewards_redeemed on passes for each row
  when (old.stamps is distinct from new.stamps or old.rewards_redeemed is distinct from new.rewards_redeemed)
  execute function passes_wallet_push();

create function cards_wallet_touch() returns trigger language plpgsql as $$
begin
  new.wallet_modified_at := wallet_next_time(greatest(old.wallet_modified_at,
    coalesce((select max(p.wallet_modified_at) from passes p where p.card_id = new.id), old.wallet_modified_at)));
  return new;
end $$;

create function cards_wallet_push() returns trigger language plpgsql as $$
begin
  insert into apple_pushes (device_id, push_token, pass_id)
  select distinct on (d.id) d.id, d.push_token, p.id
  from passes p join apple_registrations r on r.pass_id = p.id join apple_devices d on d.id = r.device_id
  where p.card_id = new.id order by d.id;
  return null;
end $$;

-- What a pass in Wallet shows of its card: these columns, and nothing else, make its passes new. (A message to
-- the holders moves the card's time too, through models/apple-wallet.server.ts, with rows that name the message.)
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
`

const DOWN = /* sql */ `
drop trigger if exists cards_wallet_push on cards;
drop trigger if exists cards_wallet_touch on cards;
drop trigger if exists passes_wallet_push on passes;
drop trigger if exists passes_wallet_touch on passes;
drop function if exists cards_wallet_push(), cards_wallet_touch(), passes_wallet_push(), passes_wallet_touch(),
  wallet_next_time(timestamptz);
drop table if exists apple_pushes, apple_voided_passes, apple_registrations, apple_devices;
alter table passes drop column if exists wallet_modified_at;
alter table cards drop column if exists wallet_modified_at;
`

export const { up, down } = sqlMigration(UP, DOWN)
