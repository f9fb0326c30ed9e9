import { sqlMigration } from './sql-migration.ts'

// A holder may remove their card (issue 14, item 11): the pass goes with its push subscriptions, but the card's
// stamp history is the owner's record (stamps given, rewards redeemed) and stays, no longer linked to any pass.
// Nothing personal is kept: a stamp event without its pass names only the card, the owner and the time.
const UP = /* sql */ `
alter table stamp_events alter column pass_id drop not null;
alter table stamp_events drop constraint stamp_events_pass_id_fkey;
-- NOT VALID then VALIDATE: the check of existing rows does not block stamping while it runs.
alter table stamp_events add constraint stamp_events_pass_id_fkey
  foreign key (pass_id) references passes (id) on delete set null not valid;
alter table stamp_events validate constraint stamp_events_pass_id_fkey;
`

const DOWN = /* sql */ `
delete from stamp_events where pass_id is null;
alter table stamp_events drop constraint stamp_events_pass_id_fkey;
alter table stamp_events add constraint stamp_events_pass_id_fkey
  foreign key (pass_id) references passes (id) on delete cascade;
alter table stamp_events alter column pass_id set not null;
`

export const { up, down } = sqlMigration(UP, DOWN)
