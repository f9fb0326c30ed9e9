import { BUMP_OWNER_CONTENT_VERSION } from './0004-plans-notices-stamps.ts'
import { sqlMigration } from './sql-migration.ts'

/*
 * The card page's counts of holders with the card in Apple Wallet and in Google Wallet move the owner's
 * content_version (0004), like every other figure on the page, so the page cache's check stays one indexed lookup
 * (models/session.server.ts) instead of counting a card's registrations and objects on every cached view
 * (issue 32, the review of its card-page cache). A registration added or removed, an object saved or set gone or
 * back: the owner of the pass's card moves on. 0004's trigger function learns the two tables (their rows name a
 * pass, whose card names the owner). A pass being deleted has no owner left to find; its own deletion moved the
 * version.
 */
const UP = /* sql */ `
create or replace function bump_owner_content_version() returns trigger language plpgsql as $$
declare
  changed record;
  owner uuid;
begin
  if tg_op = 'DELETE' then changed := old; else changed := new; end if;
  if tg_table_name in ('passes', 'stamp_events') then
    select user_id into owner from cards where id = changed.card_id;
  elsif tg_table_name in ('apple_registrations', 'google_wallet_objects') then
    select c.user_id into owner from passes p join cards c on c.id = p.card_id where p.id = changed.pass_id;
  else
    owner := changed.user_id;
  end if;
  if owner is not null then
    update users set content_version = content_version + 1 where id = owner;
  end if;
  return null;
end
$$;
create trigger apple_registrations_bump_owner_version after insert or delete on apple_registrations
  for each row execute function bump_owner_content_version();
create trigger google_wallet_objects_bump_owner_version after insert or delete on google_wallet_objects
  for each row execute function bump_owner_content_version();
create trigger google_wallet_objects_state_bump_owner_version after update of state on google_wallet_objects
  for each row when (old.state is distinct from new.state) execute function bump_owner_content_version();
`

const DOWN = /* sql */ `
drop trigger if exists apple_registrations_bump_owner_version on apple_registrations;
drop trigger if exists google_wallet_objects_bump_owner_version on google_wallet_objects;
drop trigger if exists google_wallet_objects_state_bump_owner_version on google_wallet_objects;
${BUMP_OWNER_CONTENT_VERSION.replace('create function', 'create or replace function')}
`

export const { up, down } = sqlMigration(UP, DOWN)
