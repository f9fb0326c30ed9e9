import { sqlMigration } from './sql-migration.ts'

// A card an admin made with a pre-made account (docs/product/passwords-and-tokens.md, "Pre-made accounts") is marked,
// so /premaid_card shows only that card, and an owner who designed their own card is not told "We made your card for
// you". Earlier pre-made cards are found through the audit entry written in the same transaction as the card.
const UP = /* sql */ `
alter table cards add column premade boolean not null default false;
update cards set premade = true
where id::text in (select a.after -> 'card' ->> 'id' from audit_log a where a.action = 'account.create_premade');
`

const DOWN = /* sql */ `
alter table cards drop column if exists premade;
`

export const { up, down } = sqlMigration(UP, DOWN)
