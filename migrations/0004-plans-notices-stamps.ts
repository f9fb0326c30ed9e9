import { sqlMigration } from './sql-migration.ts'

// Plans (docs/product/plans-and-limits.md): invoices of the manual payment provider, the deadline of access
// while an invoice waits, the owner's in-app notices (the header's bell), and the stamp log that the account home
// counts and the cards issue writes.
/** The owner's version trigger function as this migration made it (0021 replaces it, and puts it back on down). */
export const BUMP_OWNER_CONTENT_VERSION = /* sql */ `create function bump_owner_content_version() returns trigger language plpgsql as $$
declare
  changed record;
  owner uuid;
begin
  if tg_op = 'DELETE' then changed := old; else changed := new; end if;
  if tg_table_name in ('passes', 'stamp_events') then
    select user_id into owner from cards where id = changed.card_id;
  else
    owner := changed.user_id;
  end if;
  if owner is not null then
    update users set content_version = content_version + 1 where id = owner;
  end if;
  return null;
end
$$;`

const UP = /* sql */ `
alter table subscriptions
  add column access_ends_at timestamptz,
  add column cancelled_at timestamptz;

create sequence invoice_number_seq;

create table invoices (
  id uuid primary key default gen_random_uuid(),
  number text not null unique,
  subscription_id uuid not null references subscriptions (id) on delete cascade,
  tariff_id integer not null references tariffs (id),
  period_months integer not null check (period_months in (1, 12)),
  amount_cents integer not null check (amount_cents >= 0),
  reason text not null check (reason in ('new', 'renewal', 'change')),
  status text not null default 'open' check (status in ('open', 'paid', 'void')),
  provider text not null default 'manual',
  paid_at timestamptz,
  paid_by uuid references users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index invoices_subscription_idx on invoices (subscription_id, created_at);
-- At most one open invoice per subscription: choosing again voids the previous one.
create unique index invoices_one_open_key on invoices (subscription_id) where status = 'open';

create table notices (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id) on delete cascade,
  kind text not null check (kind in ('payment_confirmed', 'trial_ending', 'plan_ending', 'push_finished',
    'first_holder', 'first_card_ready')),
  message text not null check (length(message) between 1 and 300),
  link text check (link like '/%' and length(link) <= 300),
  -- Raised once per subject: the daily job and a retried request cannot notify twice.
  dedupe_key text not null,
  read_at timestamptz,
  created_at timestamptz not null default now(),
  unique (user_id, dedupe_key)
);
create index notices_user_created_idx on notices (user_id, created_at desc);
create index notices_user_unread_idx on notices (user_id) where read_at is null;

create table stamp_events (
  id bigserial primary key,
  pass_id uuid not null references passes (id) on delete cascade,
  card_id uuid not null references cards (id) on delete cascade,
  actor_id uuid references users (id) on delete set null,
  kind text not null check (kind in ('stamp', 'undo', 'redeem')),
  count integer not null check (count between 1 and 20),
  created_at timestamptz not null default now()
);
create index stamp_events_card_created_idx on stamp_events (card_id, created_at);
create index stamp_events_pass_created_idx on stamp_events (pass_id, created_at);

-- updated_at is kept by the database, so no code path (a model, raw SQL, an admin's fix) can change a row without
-- it: the account page's render cache (app/services/accounts/account-page-version.server.ts) relies on it.
create function set_updated_at() returns trigger language plpgsql as $$
begin
  new.updated_at := now();
  return new;
end
$$;
create trigger users_set_updated_at before update on users for each row execute function set_updated_at();
create trigger subscriptions_set_updated_at before update on subscriptions for each row execute function set_updated_at();
create trigger cards_set_updated_at before update on cards for each row execute function set_updated_at();
create trigger passes_set_updated_at before update on passes for each row execute function set_updated_at();
create trigger tariffs_set_updated_at before update on tariffs for each row execute function set_updated_at();

-- A counter per owner of every change to what their account pages show (their cards, holders, stamps, notices,
-- subscription), kept by the database: checking it costs one index lookup, so the account home's render can be
-- reused until it moves.
alter table users add column content_version bigint not null default 0;
${BUMP_OWNER_CONTENT_VERSION}
create trigger cards_bump_owner_version after insert or update or delete on cards
  for each row execute function bump_owner_content_version();
create trigger passes_bump_owner_version after insert or update or delete on passes
  for each row execute function bump_owner_content_version();
create trigger stamp_events_bump_owner_version after insert or delete on stamp_events
  for each row execute function bump_owner_content_version();
create trigger notices_bump_owner_version after insert or update or delete on notices
  for each row execute function bump_owner_content_version();
create trigger subscriptions_bump_owner_version after insert or update or delete on subscriptions
  for each row execute function bump_owner_content_version();
`

const DOWN = /* sql */ `
drop trigger if exists users_set_updated_at on users;
drop trigger if exists subscriptions_set_updated_at on subscriptions;
drop trigger if exists cards_set_updated_at on cards;
drop trigger if exists passes_set_updated_at on passes;
drop trigger if exists tariffs_set_updated_at on tariffs;
drop function if exists set_updated_at();
drop trigger if exists cards_bump_owner_version on cards;
drop trigger if exists passes_bump_owner_version on passes;
drop trigger if exists stamp_events_bump_owner_version on stamp_events;
drop trigger if exists notices_bump_owner_version on notices;
drop trigger if exists subscriptions_bump_owner_version on subscriptions;
drop function if exists bump_owner_content_version();
alter table users drop column if exists content_version;
drop table if exists stamp_events, notices, invoices;
drop sequence if exists invoice_number_seq;
alter table subscriptions drop column if exists access_ends_at, drop column if exists cancelled_at;
`

export const { up, down } = sqlMigration(UP, DOWN)
