import { sqlMigration } from './sql-migration.ts'

// The admin users list and its key figures (issue #7) over 100,000 owners, without full scans
// (models/admin-users.server.ts has the queries these serve). Only PostgreSQL 15 features.
const UP = /* sql */ `
-- Search by the start of the e-mail (email like 'abc%'). The unique index users_email_key uses the database's
-- collation, which cannot serve LIKE outside the C locale; text_pattern_ops compares bytes and can.
create index users_email_prefix_idx on users (email text_pattern_ops);
-- Search by the end of the domain ('@example.com'): a suffix of the e-mail is a prefix of its reverse.
create index users_email_reverse_idx on users (reverse(email) text_pattern_ops);
-- Newest / oldest first, with the id as tie-breaker so pages never repeat or skip a row.
create index users_created_at_idx on users (created_at, id);

-- Figures: trials ending in the next days, active cards, pushes queued this month (split by kind).
-- subscriptions (status) and (tariff_id) are indexed since 0001; passes are counted on their primary key.
create index subscriptions_trial_ends_idx on subscriptions (trial_ends_at) where status = 'trial';
create index cards_status_idx on cards (status);
create index notifications_queued_at_idx on notifications (queued_at) include (kind) where queued_at is not null;
`

const DOWN = /* sql */ `
drop index if exists notifications_queued_at_idx;
drop index if exists cards_status_idx;
drop index if exists subscriptions_trial_ends_idx;
drop index if exists users_created_at_idx;
drop index if exists users_email_reverse_idx;
drop index if exists users_email_prefix_idx;
`

export const { up, down } = sqlMigration(UP, DOWN)
