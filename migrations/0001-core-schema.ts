import { sqlMigration } from './sql-migration.ts'

// The core schema. Later features add tables and columns in new migrations; this file never changes once landed.
// Only PostgreSQL 15 features: the same SQL runs on the server and on the embedded PGlite.
const UP = /* sql */ `
create table users (
  id uuid primary key default gen_random_uuid(),
  role text not null default 'owner' check (role in ('owner', 'admin')),
  email text not null check (email = lower(email) and length(email) between 3 and 254),
  password_hash text,
  email_confirmed_at timestamptz,
  logo bytea,
  logo_content_type text check (logo_content_type in ('image/png', 'image/jpeg', 'image/webp')),
  logo_updated_at timestamptz,
  google_subject text,
  apple_subject text,
  is_premade boolean not null default false,
  disabled_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index users_email_key on users (email);
create unique index users_google_subject_key on users (google_subject) where google_subject is not null;
create unique index users_apple_subject_key on users (apple_subject) where apple_subject is not null;

create table sessions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id) on delete cascade,
  token_hash text not null unique,
  expires_at timestamptz not null,
  user_agent text,
  ip text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index sessions_user_id_idx on sessions (user_id);
create index sessions_expires_at_idx on sessions (expires_at);

create table one_time_tokens (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id) on delete cascade,
  kind text not null check (kind in ('email_verification', 'password_reset', 'premade_login', 'email_change')),
  token_hash text not null unique,
  payload jsonb not null default '{}'::jsonb,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index one_time_tokens_user_kind_idx on one_time_tokens (user_id, kind);

create table tariffs (
  id serial primary key,
  tier integer not null unique check (tier between 1 and 3),
  name text not null unique,
  monthly_price_cents integer not null check (monthly_price_cents >= 0),
  yearly_price_cents integer not null check (yearly_price_cents >= 0),
  card_limit integer not null check (card_limit >= 0),
  monthly_push_limit integer not null check (monthly_push_limit >= 0),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table subscriptions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null unique references users (id) on delete cascade,
  tariff_id integer references tariffs (id),
  period_months integer check (period_months in (1, 12)),
  status text not null default 'trial'
    check (status in ('trial', 'active', 'ended', 'cancelled', 'waiting_payment')),
  trial_ends_at timestamptz not null,
  period_starts_at timestamptz,
  period_ends_at timestamptz,
  additional_quota integer not null default 0 check (additional_quota >= 0),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index subscriptions_status_idx on subscriptions (status);
create index subscriptions_tariff_id_idx on subscriptions (tariff_id);

create table subscription_status_changes (
  id bigserial primary key,
  subscription_id uuid not null references subscriptions (id) on delete cascade,
  from_status text,
  to_status text not null,
  cause text not null,
  actor_id uuid references users (id) on delete set null,
  changed_at timestamptz not null default now()
);
create index subscription_status_changes_subscription_idx on subscription_status_changes (subscription_id, changed_at);

create table cards (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id) on delete cascade,
  slug text not null unique check (slug ~ '^[a-z0-9-]{3,64}$'),
  status text not null default 'draft' check (status in ('draft', 'active', 'archived')),
  title text not null default '' check (length(title) <= 60),
  business_name text not null default '' check (length(business_name) <= 60),
  stamps_required integer not null default 10 check (stamps_required between 1 and 20),
  background_color text not null default '#1f3a5f' check (background_color ~ '^#[0-9a-f]{6}$'),
  text_color text not null default '#ffffff' check (text_color ~ '^#[0-9a-f]{6}$'),
  stamp_icon text not null default 'star'
    check (stamp_icon in ('star', 'heart', 'coffee', 'gift', 'check', 'paw', 'scissors', 'pizza')),
  logo bytea,
  logo_content_type text check (logo_content_type in ('image/png', 'image/jpeg', 'image/webp')),
  reward text not null default '' check (length(reward) <= 120),
  terms text not null default '' check (length(terms) <= 600),
  onboarding_step text,
  archived_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index cards_user_id_idx on cards (user_id, created_at);

create table passes (
  id uuid primary key default gen_random_uuid(),
  card_id uuid not null references cards (id) on delete cascade,
  short_code text not null check (short_code ~ '^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{8}$'),
  stamps integer not null default 0 check (stamps >= 0),
  rewards_redeemed integer not null default 0 check (rewards_redeemed >= 0),
  last_stamped_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index passes_short_code_key on passes (short_code);
create index passes_card_id_idx on passes (card_id);

create table push_subscriptions (
  id uuid primary key default gen_random_uuid(),
  pass_id uuid not null references passes (id) on delete cascade,
  endpoint text not null check (length(endpoint) <= 2048),
  p256dh text not null,
  auth text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (pass_id, endpoint)
);

create table templates (
  id uuid primary key default gen_random_uuid(),
  user_id uuid references users (id) on delete cascade,
  title text not null check (length(title) between 1 and 50),
  body text not null check (length(body) between 1 and 180),
  link text check (length(link) <= 2048),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index templates_user_id_idx on templates (user_id);

create table notifications (
  id uuid primary key default gen_random_uuid(),
  card_id uuid not null references cards (id) on delete cascade,
  user_id uuid not null references users (id) on delete cascade,
  template_id uuid references templates (id) on delete set null,
  kind text not null default 'message' check (kind in ('message', 'stamp', 'reward')),
  title text not null check (length(title) between 1 and 50),
  body text not null check (length(body) between 1 and 180),
  link text check (length(link) <= 2048),
  status text not null default 'draft' check (status in ('draft', 'queued', 'sending', 'done', 'failed')),
  counts_toward_quota boolean not null default true,
  queued_at timestamptz,
  finished_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index notifications_card_id_idx on notifications (card_id, created_at);
create index notifications_user_queued_idx on notifications (user_id, queued_at);

create table deliveries (
  id bigserial primary key,
  notification_id uuid not null references notifications (id) on delete cascade,
  push_subscription_id uuid references push_subscriptions (id) on delete set null,
  status text not null default 'pending' check (status in ('pending', 'sent', 'failed', 'gone')),
  attempts integer not null default 0 check (attempts >= 0),
  last_error text,
  next_attempt_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (notification_id, push_subscription_id)
);
create index deliveries_pending_idx on deliveries (notification_id, id) where status = 'pending';

create table feedback_messages (
  id uuid primary key default gen_random_uuid(),
  source text not null check (source in ('feedback', 'contacts', 'account')),
  user_id uuid references users (id) on delete set null,
  name text check (length(name) <= 100),
  email text check (length(email) <= 254),
  subject text check (length(subject) <= 150),
  message text not null check (length(message) between 1 and 5000),
  handled_at timestamptz,
  handled_by uuid references users (id) on delete set null,
  created_at timestamptz not null default now()
);
create index feedback_messages_created_at_idx on feedback_messages (created_at);

create table mails (
  id uuid primary key default gen_random_uuid(),
  to_address text not null,
  from_address text not null,
  subject text not null,
  text_body text not null,
  html_body text,
  status text not null default 'pending' check (status in ('pending', 'sent', 'stored', 'failed')),
  attempts integer not null default 0,
  last_error text,
  next_attempt_at timestamptz,
  sent_at timestamptz,
  created_at timestamptz not null default now()
);
create index mails_pending_idx on mails (next_attempt_at) where status = 'pending';

create table audit_log (
  id bigserial primary key,
  actor_id uuid references users (id) on delete set null,
  action text not null,
  target_type text not null,
  target_id text,
  before jsonb,
  after jsonb,
  created_at timestamptz not null default now()
);
create index audit_log_target_idx on audit_log (target_type, target_id, created_at);

create table rate_limit_counters (
  key text primary key,
  points integer not null default 0,
  expires_at timestamptz not null
);
create index rate_limit_counters_expires_at_idx on rate_limit_counters (expires_at);

create table settings (
  key text primary key,
  value jsonb not null,
  updated_at timestamptz not null default now()
);
`

const DOWN = /* sql */ `
drop table if exists settings, rate_limit_counters, audit_log, mails, feedback_messages, deliveries, notifications,
  templates, push_subscriptions, passes, cards, subscription_status_changes, subscriptions, tariffs,
  one_time_tokens, sessions, users cascade;
`

export const { up, down } = sqlMigration(UP, DOWN)
