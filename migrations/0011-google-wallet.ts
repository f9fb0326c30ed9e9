import { sqlMigration } from './sql-migration.ts'

/*
 * Google Wallet (issue 17; docs/product/wallets.md; docs/decisions/037-google-wallet-updates.md).
 *
 * 1. google_wallet_classes / google_wallet_objects: which cards have a loyalty class at Google and which passes a
 *    loyalty object, made when a holder first follows 'Save to Google Wallet' (not for every pass). An object Google
 *    answered 404 for (deleted on Google's side) is 'gone': nothing is sent for it until the holder saves it again.
 * 2. google_wallet_updates: one row per call to Google — a class PATCH after a design change, an object PATCH after a
 *    stamp, undo or redemption, a message added to an object, an object set INACTIVE before its card, account or pass
 *    goes. The jobs send them with leases and retries like web push's deliveries and Apple's pushes; a message's rows
 *    name it, so its history counts Google Wallet passes. A row names its card and pass without foreign keys: an
 *    INACTIVE call must still go after the rows are deleted. What a PATCH carries is read when it is sent (the
 *    newest stamps), so a row only says what changed.
 * 3. Triggers queue the rows of a stamp or a design change in the transaction that made it (as Apple's do), so every
 *    path that stamps or edits a card is covered without remembering to.
 */
const UP = /* sql */ `
create table google_wallet_classes (
  card_id uuid primary key references cards (id) on delete cascade,
  created_at timestamptz not null default now()
);

create table google_wallet_objects (
  pass_id uuid primary key references passes (id) on delete cascade,
  card_id uuid not null references cards (id) on delete cascade,
  state text not null default 'active' check (state in ('active', 'gone')),
  created_at timestamptz not null default now()
);
create index google_wallet_objects_card_id_idx on google_wallet_objects (card_id);

create table google_wallet_updates (
  id bigserial primary key,
  kind text not null check (kind in ('class', 'object', 'message', 'inactive')),
  card_id uuid,
  pass_id uuid,
  notification_id uuid references notifications (id) on delete cascade,
  -- An object update that earned the reward asks Google to notify the holder (within Google's limit).
  notify boolean not null default false,
  -- Once sent: whether Google was asked to notify (a message past the limit is shown, not notified).
  notified boolean,
  status text not null default 'pending' check (status in ('pending', 'sent', 'failed', 'gone')),
  attempts integer not null default 0 check (attempts >= 0),
  last_error text,
  next_attempt_at timestamptz,
  lease_until timestamptz,
  sent_at timestamptz,
  created_at timestamptz not null default now(),
  check ((kind = 'class') = (pass_id is null)),
  check ((kind = 'message') = (notification_id is not null))
);
create index google_wallet_updates_pending_idx on google_wallet_updates (id) where status = 'pending';
create index google_wallet_updates_notification_id_idx on google_wallet_updates (notification_id)
  where notification_id is not null;
-- Google notifies a pass's holder at most 3 times in 24 hours: the notified calls of a pass, by time.
create index google_wallet_updates_notified_idx on google_wallet_updates (pass_id, sent_at) where notified;

create function passes_google_wallet_update() returns trigger language plpgsql as $$
begin
  insert into google_wallet_updates (kind, card_id, pass_id, notify)
  select 'object', o.card_id, o.pass_id, new.stamps >= c.stamps_required and old.stamps < c.stamps_required
  from google_wallet_objects o join cards c on c.id = o.card_id
  where o.pass_id = new.id and o.state = 'active';
  return null;
end $$;
create trigger passes_google_wallet_update after update of stamps, rewards_redeemed on passes for each row
  when (old.stamps is distinct from new.stamps or old.rewards_redeemed is distinct from new.rewards_redeemed)
  execute function passes_google_wallet_update();

create function cards_google_wallet_update() returns trigger language plpgsql as $$
begin
  insert into google_wallet_updates (kind, card_id)
  select 'class', new.id where exists (select 1 from google_wallet_classes g where g.card_id = new.id);
  -- The objects show '{n} of {N}' and the reward: they change with the card's stamps required and reward too.
  if (old.stamps_required, old.reward) is distinct from (new.stamps_required, new.reward) then
    insert into google_wallet_updates (kind, card_id, pass_id)
    select 'object', o.card_id, o.pass_id from google_wallet_objects o where o.card_id = new.id and o.state = 'active';
  end if;
  return null;
end $$;
-- What Google Wallet shows of a card (the class: names, colour, logo, reward and terms; the objects: stamps
-- required and reward): these columns, and nothing else, make its class and objects new.
create trigger cards_google_wallet_update after update on cards for each row
  when ((old.title, old.business_name, old.stamps_required, old.background_color, old.reward, old.terms,
         old.logo_content_type, old.stamp_icon, old.text_color)
        is distinct from
        (new.title, new.business_name, new.stamps_required, new.background_color, new.reward, new.terms,
         new.logo_content_type, new.stamp_icon, new.text_color)
        or old.logo is distinct from new.logo)
  execute function cards_google_wallet_update();
`

const DOWN = /* sql */ `
drop trigger if exists cards_google_wallet_update on cards;
drop trigger if exists passes_google_wallet_update on passes;
drop function if exists cards_google_wallet_update(), passes_google_wallet_update();
drop table if exists google_wallet_updates, google_wallet_objects, google_wallet_classes;
`

export const { up, down } = sqlMigration(UP, DOWN)
