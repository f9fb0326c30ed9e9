import { sqlMigration } from './sql-migration.ts'

/*
 * Holders who can be found again (issue 34, DECISIONS.md "Holders who can be found again"), first part: what a card
 * asks its holders (`cards.holder_details`, null: nothing; every existing card), the details a holder gave
 * (`holder_profiles`, one row per pass at most; existing passes have none) and the one-use links sent to a holder's
 * e-mail (`holder_tokens`, only their hash kept). A profile goes with its pass (on delete cascade), so removing a
 * card from a phone removes what its holder gave. A birthday is a day and a month, checked against the longest
 * month (29 February is a day). E-mails are searched by lower(email) and phones as stored (E.164) within one card.
 */
const UP = /* sql */ `
alter table cards add column holder_details jsonb check (holder_details is null or jsonb_typeof(holder_details) = 'object');

create table holder_profiles (
  pass_id uuid primary key references passes (id) on delete cascade,
  card_id uuid not null references cards (id) on delete cascade,
  name text check (char_length(name) between 1 and 80),
  email text check (char_length(email) between 3 and 254),
  email_confirmed_at timestamptz,
  phone text check (phone ~ '^\\+[1-9][0-9]{6,14}$'),
  birth_month smallint check (birth_month between 1 and 12),
  birth_day smallint check (birth_day between 1 and 31),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint holder_profiles_birthday check ((birth_month is null) = (birth_day is null)),
  constraint holder_profiles_birthday_day check (birth_day <= case birth_month
    when 2 then 29 when 4 then 30 when 6 then 30 when 9 then 30 when 11 then 30 else 31 end),
  constraint holder_profiles_confirmed_email check (email_confirmed_at is null or email is not null)
);
create index holder_profiles_card_email on holder_profiles (card_id, lower(email)) where email is not null;
create index holder_profiles_card_phone on holder_profiles (card_id, phone) where phone is not null;
create trigger holder_profiles_set_updated_at before update on holder_profiles
  for each row execute function set_updated_at();

create table holder_tokens (
  token_hash text primary key,
  pass_id uuid not null references passes (id) on delete cascade,
  kind text not null check (kind in ('email_confirmation')),
  email text not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index holder_tokens_pass on holder_tokens (pass_id, kind);
`

const DOWN = /* sql */ `
drop table if exists holder_tokens;
drop table if exists holder_profiles;
alter table cards drop column if exists holder_details;
`

export const { up, down } = sqlMigration(UP, DOWN)
