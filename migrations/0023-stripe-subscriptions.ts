import { sqlMigration } from './sql-migration.ts'

/*
 * Paying by card (issue 33, docs/product/paying-by-card.md): a subscription is paid by bank transfer (the manual
 * provider, every existing row) or through Stripe, whose customer and subscription it then names (each at most once:
 * one Stripe customer per owner, kept). Stripe's events are kept by id in `stripe_events`, written in the transaction
 * that applies each one, so an event delivered twice, or to two processes at once, is applied once; the outcome says
 * what it did (for the admin's page and the logs). `stripe_synced_at` is when the state last applied was read from
 * Stripe: a read older than it (two events for one subscription applied at once) changes nothing. A failed card
 * payment raises a notice of the new kind 'payment_failed'.
 */
const KINDS = `'payment_confirmed', 'trial_ending', 'plan_ending', 'push_finished', 'first_holder', 'first_card_ready',
  'team_invitation'`
const UP = /* sql */ `
alter table subscriptions
  add column provider text not null default 'manual' check (provider in ('manual', 'stripe')),
  add column stripe_customer_id text unique,
  add column stripe_subscription_id text unique,
  add column stripe_synced_at timestamptz;
alter table notices drop constraint notices_kind_check;
alter table notices add constraint notices_kind_check check (kind in (${KINDS}, 'payment_failed'));

create table stripe_events (
  id text primary key,
  type text not null,
  user_id uuid references users (id) on delete set null,
  outcome text not null,
  stripe_created_at timestamptz not null,
  applied_at timestamptz not null default now()
);
create index stripe_events_user_applied on stripe_events (user_id, applied_at desc) where user_id is not null;
`

const DOWN = /* sql */ `
delete from notices where kind = 'payment_failed';
alter table notices drop constraint notices_kind_check;
alter table notices add constraint notices_kind_check check (kind in (${KINDS}));
drop table if exists stripe_events;
alter table subscriptions
  drop column if exists stripe_synced_at,
  drop column if exists stripe_subscription_id,
  drop column if exists stripe_customer_id,
  drop column if exists provider;
`

export const { up, down } = sqlMigration(UP, DOWN)
