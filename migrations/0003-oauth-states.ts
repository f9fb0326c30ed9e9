import { sqlMigration } from './sql-migration.ts'

// Google and Apple sign-in: what a sign-in started with, until the provider answers. Kept in the database rather
// than a cookie because Apple answers with a cross-site form POST, which carries no SameSite=Lax cookie.
// Only the state's hash is stored; each row is used once and lives 10 minutes.
const UP = /* sql */ `
create table oauth_states (
  state_hash text primary key,
  provider text not null check (provider in ('google', 'apple')),
  code_verifier text not null,
  nonce text not null,
  redirect_to text check (length(redirect_to) <= 2048),
  browser_hash text,
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index oauth_states_expires_at_idx on oauth_states (expires_at);
`

const DOWN = /* sql */ `
drop table oauth_states;
`

export const { up, down } = sqlMigration(UP, DOWN)
