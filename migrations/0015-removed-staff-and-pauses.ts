import { sqlMigration } from './sql-migration.ts'

/*
 * Two follow-ups to 0014 (issue 20's review):
 *
 * 1. A removed staff member's row stays for the activity, and 0014 freed its e-mail address; its Google or Apple
 *    subject stayed taken, so the same person signing in with that provider later (invited again, or as an owner)
 *    hit the unique index: a 500 on every attempt. The subject indexes now cover users not removed, as the e-mail's.
 * 2. The pause between stamps counts from passes.last_stamped_at, which an undo now moves back to the last stamp that
 *    stands. Before 0014 an undo left it at the undone stamp: passes whose stamps were undone get the time of their
 *    newest standing stamp (none: null), so no pass is paused by a stamp that was taken back.
 */
const UP = /* sql */ `
drop index users_google_subject_key;
create unique index users_google_subject_key on users (google_subject)
  where google_subject is not null and removed_at is null;
drop index users_apple_subject_key;
create unique index users_apple_subject_key on users (apple_subject)
  where apple_subject is not null and removed_at is null;

update passes p set last_stamped_at = standing.at
from (
  select e.pass_id, max(e.created_at) filter (where e.undone_at is null) as at
  from stamp_events e
  where e.kind = 'stamp'
    and e.pass_id in (select u.pass_id from stamp_events u where u.kind = 'stamp' and u.undone_at is not null)
  group by e.pass_id
) standing
where p.id = standing.pass_id and p.last_stamped_at is distinct from standing.at;
`

// The passes keep their corrected times (the old value was wrong). A removed member's subject is dropped where the
// old indexes, which cover every row, would otherwise refuse a duplicate.
const DOWN = /* sql */ `
update users set google_subject = null where removed_at is not null and google_subject is not null;
update users set apple_subject = null where removed_at is not null and apple_subject is not null;
drop index if exists users_google_subject_key;
create unique index users_google_subject_key on users (google_subject) where google_subject is not null;
drop index if exists users_apple_subject_key;
create unique index users_apple_subject_key on users (apple_subject) where apple_subject is not null;
`

export const { up, down } = sqlMigration(UP, DOWN)
