import { sqlMigration } from './sql-migration.ts'

// Plans and prices from docs/product/plans-and-limits.md; prices in cents.
// Shared push templates (user_id null) that every owner can start a message from.
const UP = /* sql */ `
insert into tariffs (tier, name, monthly_price_cents, yearly_price_cents, card_limit, monthly_push_limit) values
  (1, 'Basic', 1900, 19000, 1, 4),
  (2, 'Standard', 3900, 39000, 3, 12),
  (3, 'Premium', 7900, 79000, 10, 40);

insert into templates (user_id, title, body) values
  (null, 'Double stamps today', 'Every purchase today earns two stamps on your card. See you soon!'),
  (null, 'Your reward is waiting', 'You are one visit away from your reward. Drop by and treat yourself.'),
  (null, 'New on the menu', 'We have something new for you to try. Come in this week and tell us what you think.'),
  (null, 'We miss you', 'It has been a while! Your card is still here, and so are we. Come and collect a stamp.'),
  (null, 'Happy holidays', 'Thank you for a wonderful year. Check our holiday opening hours before you visit.'),
  (null, 'Closed for a day', 'We are closed tomorrow for a private event. Your stamps are safe and we reopen the day after.');
`

const DOWN = /* sql */ `
delete from templates where user_id is null;
delete from tariffs where tier in (1, 2, 3);
`

export const { up, down } = sqlMigration(UP, DOWN)
