import { sqlMigration } from './sql-migration.ts'

// Plans (DECISIONS.md, "Plans, trial and limits"): invoices of the manual payment provider, the deadline of access
// while an invoice waits, the owner's in-app notices (the header's bell), and the stamp log that the account home
// counts and the cards issue writes.
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
`

const DOWN = /* sql */ `
drop table if exists stamp_events, notices, invoices;
drop sequence if exists invoice_number_seq;
alter table subscriptions drop column if exists access_ends_at, drop column if exists cancelled_at;
`

export const { up, down } = sqlMigration(UP, DOWN)
