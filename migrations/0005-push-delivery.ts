import { sqlMigration } from './sql-migration.ts'

// Push messages (issue #6, docs/product/push-messages.md): deliveries are claimed with a lease, so a process that
// dies mid-send leaves rows another can take over once the lease runs out; automatic stamp and reward pushes go to
// one pass (`pass_id`); a message records which quota paid for it; an owner can turn automatic pushes off per card.
const UP = /* sql */ `
alter table deliveries
  add column lease_until timestamptz,
  add column sent_at timestamptz;

alter table notifications
  add column pass_id uuid references passes (id) on delete cascade,
  add column quota_source text check (quota_source in ('monthly', 'additional')),
  add column recipients integer check (recipients >= 0);
create index notifications_unfinished_idx on notifications (status) where status in ('queued', 'sending');

alter table cards add column auto_push boolean not null default true;

-- A device that renews its subscription, or a push service that answers 410, names the endpoint only.
create index push_subscriptions_endpoint_idx on push_subscriptions (endpoint);
`

const DOWN = /* sql */ `
drop index if exists push_subscriptions_endpoint_idx;
alter table cards drop column if exists auto_push;
drop index if exists notifications_unfinished_idx;
alter table notifications drop column if exists pass_id, drop column if exists quota_source, drop column if exists recipients;
alter table deliveries drop column if exists lease_until, drop column if exists sent_at;
`

export const { up, down } = sqlMigration(UP, DOWN)
