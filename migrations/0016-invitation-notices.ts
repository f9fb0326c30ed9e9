import { sqlMigration } from './sql-migration.ts'

/*
 * An invitation holds an address only while it is pending (issue 30, item 12;
 * docs/decisions/052-invitations-hold-no-address.md): the invitee may decline it or make their own account, which
 * withdraws it, and the owner is told with a notice of the new kind 'team_invitation'. Lapsed invitations need no
 * rewrite: they are released when their address is needed.
 */
const KINDS = `'payment_confirmed', 'trial_ending', 'plan_ending', 'push_finished', 'first_holder', 'first_card_ready'`

const UP = /* sql */ `
alter table notices drop constraint notices_kind_check;
alter table notices add constraint notices_kind_check check (kind in (${KINDS}, 'team_invitation'));
`

const DOWN = /* sql */ `
delete from notices where kind = 'team_invitation';
alter table notices drop constraint notices_kind_check;
alter table notices add constraint notices_kind_check check (kind in (${KINDS}));
`

export const { up, down } = sqlMigration(UP, DOWN)
