import type pg from 'pg'

/**
 * At least one row in every table of the app, linked the way the app links them (owners, subscriptions and
 * invoices, cards, passes, devices, messages and their deliveries, stamps, notices, mails, audit rows…), with the
 * awkward values a copy must keep: bytea logos, jsonb, non-ASCII text, nulls, sequence-drawn numbers.
 * Statuses are settled ones (an active plan, a finished message, a stored mail) so that a running server's jobs
 * have nothing to change in them. `tag` (lower-case letters) keeps e-mails, slugs and codes apart when it is seeded
 * twice.
 */
export async function seedEveryTable(client: pg.ClientBase, tag = 'a') {
  const shortCode = `SEED${tag.toUpperCase().replace(/[^A-HJ-NP-Z2-9]/g, 'Z')}XXXX`.slice(0, 8)
  await client.query(
    `with
      admin as (insert into users (role, email, password_hash, email_confirmed_at)
        values ('admin', $1 || '-admin@seed.test', 'hash-admin', now()) returning id),
      owner as (insert into users (email, password_hash, email_confirmed_at, logo, logo_content_type, logo_updated_at, google_subject)
        values ($1 || '-owner@seed.test', 'hash-owner', now(), '\\x89504e470d0a1a0a00ff'::bytea, 'image/png', now(), $1 || '-google')
        returning id),
      guest as (insert into users (email, password_hash, is_premade) values ($1 || '-premade@seed.test', null, true) returning id),
      s1 as (insert into sessions (user_id, token_hash, expires_at, user_agent, ip)
        select id, $1 || '-token-1', now() + interval '30 days', 'Mozilla/5.0 (Ünïcode)', '127.0.0.1' from owner returning id),
      t1 as (insert into one_time_tokens (user_id, kind, token_hash, payload, expires_at)
        select id, 'email_change', $1 || '-ott-1', '{"email": "new@seed.test", "list": [1, 2.5, null, "ü"]}', now() + interval '1 day'
        from owner returning id),
      sub as (insert into subscriptions (user_id, tariff_id, period_months, status, trial_ends_at, period_starts_at, period_ends_at, additional_quota)
        select owner.id, tariffs.id, 12, 'active', now() - interval '20 days', now() - interval '6 days', now() + interval '359 days', 5
        from owner, tariffs where tariffs.tier = 2 returning id),
      sub2 as (insert into subscriptions (user_id, status, trial_ends_at) select id, 'trial', now() + interval '12 days' from guest returning id),
      sub3 as (insert into subscriptions (user_id, tariff_id, period_months, status, trial_ends_at, period_starts_at, period_ends_at,
          provider, stripe_customer_id, stripe_subscription_id)
        select admin.id, tariffs.id, 1, 'active', now() - interval '40 days', now() - interval '3 days', now() + interval '27 days',
          'stripe', 'cus_' || $1 || 'seed', 'sub_' || $1 || 'seed'
        from admin, tariffs where tariffs.tier = 1 returning id),
      stripe_event as (insert into stripe_events (id, type, user_id, outcome, stripe_created_at)
        select 'evt_' || $1 || 'seed', 'invoice.paid', admin.id, 'active until the period''s end (ü)', now() - interval '3 days'
        from admin returning id),
      changes as (insert into subscription_status_changes (subscription_id, from_status, to_status, cause, actor_id)
        select sub.id, 'waiting_payment', 'active', 'payment confirmed', admin.id from sub, admin returning id),
      invoice as (insert into invoices (number, subscription_id, tariff_id, period_months, amount_cents, reason, status, paid_at, paid_by)
        select 'SW-' || nextval('invoice_number_seq'), sub.id, tariffs.id, 12, 9900, 'new', 'paid', now(), admin.id
        from sub, admin, tariffs where tariffs.tier = 2 returning id),
      card as (insert into cards (user_id, slug, status, title, business_name, stamps_required, logo, logo_content_type, reward, terms, holder_details)
        select id, $1 || '-cafe-card', 'active', 'Café ☕ «stamps»', 'Bäckerei', 8, '\\x52494646'::bytea, 'image/webp',
          'A free coffee', E'Line one\\nLine "two"',
          '{"fields": ["email", "birthday"], "when": "after_stamps", "afterStamps": 2, "privacyNote": "Nur für Sie ✓", "phoneCountry": "DE"}'
        from owner returning id),
      draft as (insert into cards (user_id, slug, onboarding_step) select id, $1 || '-draft', 'design' from owner returning id),
      pass as (insert into passes (card_id, short_code, stamps, rewards_redeemed, last_stamped_at)
        select id, $2, 3, 1, now() from card returning id, card_id),
      profile as (insert into holder_profiles (pass_id, card_id, name, email, email_confirmed_at, phone, birth_day, birth_month)
        select id, card_id, 'Zoë Ñúñez', $1 || '-holder@seed.test', now(), '+4930901820', 29, 2 from pass returning pass_id),
      holder_token as (insert into holder_tokens (token_hash, pass_id, kind, email, expires_at)
        select $1 || '-holder-token', id, 'email_confirmation', $1 || '-holder@seed.test', now() + interval '2 days'
        from pass returning pass_id),
      device as (insert into push_subscriptions (pass_id, endpoint, p256dh, auth)
        select id, 'https://push.seed.test/' || $1, 'BPk-p256dh', 'auth-secret' from pass returning id),
      template as (insert into templates (user_id, title, body, link)
        select id, 'Own template', 'Come by — 2×1 today', null from owner returning id),
      message as (insert into notifications (card_id, user_id, template_id, title, body, link, status, queued_at, finished_at, quota_source, recipients)
        select card.id, owner.id, template.id, 'Hello', 'Fresh croissants', 'https://seed.test/a?b=1&c=ü', 'done', now(), now(), 'monthly', 1
        from card, owner, template returning id),
      delivery as (insert into deliveries (notification_id, push_subscription_id, status, attempts, sent_at)
        select message.id, device.id, 'sent', 1, now() from message, device returning id),
      wallet as (insert into apple_devices (id, push_token) values ($1 || '-device-library-id', 'a1b2c3d4e5f6') returning id),
      registration as (insert into apple_registrations (device_id, pass_id) select wallet.id, pass.id from wallet, pass
        returning device_id),
      voided as (insert into apple_voided_passes (pass_id, pkpass, modified_at)
        values (gen_random_uuid(), '\\x504b0304'::bytea, date_trunc('second', now())) returning pass_id),
      apple_push as (insert into apple_pushes (device_id, push_token, pass_id, notification_id, status, attempts, sent_at)
        select wallet.id, 'a1b2c3d4e5f6', pass.id, message.id, 'sent', 1, now() from wallet, pass, message returning id),
      google_class as (insert into google_wallet_classes (card_id) select id from card returning card_id),
      google_object as (insert into google_wallet_objects (pass_id, card_id) select id, card_id from pass returning pass_id),
      google_update as (insert into google_wallet_updates (kind, card_id, pass_id, notification_id, notified, status, attempts, sent_at)
        select 'message', pass.card_id, pass.id, message.id, true, 'sent', 1, now() from pass, message returning id),
      feedback as (insert into feedback_messages (source, user_id, name, email, subject, message, handled_at, handled_by)
        select 'account', owner.id, 'Zoë', 'zoe@seed.test', 'Idea', E'Multi\\nline <b>text</b>', now(), admin.id from owner, admin returning id),
      mail as (insert into mails (to_address, from_address, subject, text_body, html_body, status, attempts, sent_at)
        values ($1 || '-owner@seed.test', 'Stampwise <hello@localhost>', 'Welcome', 'Hi', '<p>Hi</p>', 'stored', 1, now()) returning id),
      audit as (insert into audit_log (actor_id, action, target_type, target_id, before, after)
        select admin.id, 'seed', 'user', owner.id::text, '{"status": "trial"}', '{"status": "active"}' from admin, owner returning id),
      counter as (insert into rate_limit_counters (key, points, expires_at) values ($1 || ':login:127.0.0.1', 3, now() + interval '1 day') returning key),
      setting as (insert into settings (key, value) values ($1 || '-seed-setting', '{"nested": {"a": [true, false]}}') returning key),
      oauth as (insert into oauth_states (state_hash, provider, code_verifier, nonce, redirect_to, expires_at)
        values ($1 || '-state', 'google', 'verifier', 'nonce', '/account', now() + interval '1 day') returning state_hash),
      notice as (insert into notices (user_id, kind, message, link, dedupe_key)
        select id, 'payment_confirmed', 'Payment received', '/account/tariffs', $1 || '-paid' from owner returning id),
      -- Two days ago: a past day's row moves the card's insight version (migration 0020), so that table has a row too.
      stamp as (insert into stamp_events (pass_id, card_id, actor_id, kind, count, created_at)
        select pass.id, pass.card_id, owner.id, 'stamp', 3, now() - interval '2 days' from pass, owner returning id),
      automation as (insert into card_automations (card_id, kind, enabled, title, body, days, enabled_at)
        select id, 'we_miss_you', true, 'Wir vermissen dich', 'Komm bald wieder ☕', 21, now() from card returning card_id),
      cancelled as (insert into notifications (card_id, user_id, title, body, status, scheduled_for, audience)
        select card.id, owner.id, 'Later', 'Happy hour «today»', 'cancelled', now() + interval '2 days', 'inactive'
        from card, owner returning id),
      automatic as (insert into notifications (card_id, user_id, pass_id, kind, title, body, status, counts_toward_quota,
          occasion, scheduled_for, skipped_reason)
        select pass.card_id, owner.id, pass.id, 'we_miss_you', 'Wir vermissen dich', 'Komm bald wieder', 'skipped', false,
          'we_miss_you:1700000000000', now(), 'daily_cap' from pass, owner returning id),
      location_staff as (insert into users (role, email, password_hash, email_confirmed_at, employer_id, staff_name)
        select 'staff', $1 || '-staff@seed.test', 'hash-staff', now(), id, 'Zoë at the till' from owner returning id),
      shop as (insert into locations (owner_id, name, address, latitude, longitude)
        select id, 'Café «Baixa»', E'Rua Augusta 1\u00a0— 1100-048 Lisboa', 38.7101234567891, -9.1370987654321
        from owner returning id),
      closed_shop as (insert into locations (owner_id, name, address, removed_at)
        select id, 'Old kiosk', 'Praça do Comércio', now() from owner returning id),
      works_at as (insert into staff_locations (staff_id, location_id)
        select location_staff.id, shop.id from location_staff, shop returning staff_id),
      worked_at as (insert into staff_locations (staff_id, location_id)
        select location_staff.id, closed_shop.id from location_staff, closed_shop returning staff_id),
      stamp_there as (insert into stamp_events (pass_id, card_id, actor_id, kind, count, location_id)
        select pass.id, pass.card_id, location_staff.id, 'stamp', 1, shop.id from pass, location_staff, shop
        returning id),
      card_message as (insert into card_latest_messages (card_id, notification_id, sent_at)
        select card.id, message.id, now() from card, message returning card_id),
      pass_message as (insert into pass_latest_messages (pass_id, notification_id, sent_at)
        select pass.id, message.id, now() - interval '1 hour' from pass, message returning pass_id)
    select (select count(*) from s1) + (select count(*) from t1) + (select count(*) from sub2) + (select count(*) from changes)
      + (select count(*) from invoice) + (select count(*) from draft) + (select count(*) from delivery)
      + (select count(*) from feedback) + (select count(*) from mail) + (select count(*) from audit)
      + (select count(*) from counter) + (select count(*) from setting) + (select count(*) from oauth)
      + (select count(*) from notice) + (select count(*) from stamp) + (select count(*) from automation)
      + (select count(*) from cancelled) + (select count(*) from automatic) + (select count(*) from works_at)
      + (select count(*) from worked_at) + (select count(*) from stamp_there) + (select count(*) from card_message)
      + (select count(*) from pass_message) as inserted`,
    [tag, shortCode],
  )
}
