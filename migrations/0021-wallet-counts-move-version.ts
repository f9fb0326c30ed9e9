import { sqlMigration } from './sql-migration.ts'

/*
 * The card page's counts of holders with the card in Apple Wallet and in Google Wallet move the owner's
 * content_version (0004), like every other figure on the page, so the page cache's check stays one indexed lookup
 * (models/session.server.ts) instead of counting a card's registrations and objects on every cached view
 * (issue 32, the review of its card-page cache). A registration added or removed, an object saved or set gone or
 * back: the owner of the pass's card moves on. A pass being deleted has no owner left to find; its own deletion moved
 * the version.
 */
const UP = /* sql */ `
create function bump_owner_version_of_pass() returns trigger language plpgsql as $$
declare
  changed record;
  owner uuid;
begin
  if tg_op = 'DELETE' then changed := old; else changed := new; end if;
  select c.user_id into owner from passes p join cards c on c.id = p.card_id where p.id = changed.pass_id;
  if owner is not null then
    update users set content_version = content_version + 1 where id = owner;
  end if;
  return null;
end
$$;
create trigger apple_registrations_bump_owner_version after insert or delete on apple_registrations
  for each row execute function bump_owner_version_of_pass();
create trigger google_wallet_objects_bump_owner_version after insert or delete on google_wallet_objects
  for each row execute function bump_owner_version_of_pass();
create trigger google_wallet_objects_state_bump_owner_version after update of state on google_wallet_objects
  for each row when (old.state is distinct from new.state) execute function bump_owner_version_of_pass();
`

const DOWN = /* sql */ `
drop trigger if exists apple_registrations_bump_owner_version on apple_registrations;
drop trigger if exists google_wallet_objects_bump_owner_version on google_wallet_objects;
drop trigger if exists google_wallet_objects_state_bump_owner_version on google_wallet_objects;
drop function if exists bump_owner_version_of_pass();
`

export const { up, down } = sqlMigration(UP, DOWN)
