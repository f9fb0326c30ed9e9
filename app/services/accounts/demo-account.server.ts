import { QueryTypes } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { hashPassword } from '#app/services/auth/password.server.ts'
import { TRIAL_DAYS } from '#app/utils/plan-status.ts'

export const DEMO_EMAIL = 'demo@stampwise.test'
export const DEMO_PASSWORD = 'Stampwise1!'

/**
 * Outside production, an empty database gets one confirmed owner on a trial with one card, so a newcomer can
 * sign in and look around at once. Returns the credentials when it created them (the server prints them).
 * Written in SQL rather than through the models: it runs in server.ts, before the Remix build is loaded.
 */
export async function ensureDemoAccount(): Promise<{ email: string; password: string } | undefined> {
  const sequelize = getSequelize()
  return sequelize.transaction(async (transaction) => {
    const [{ count }] = await sequelize.query<{ count: number }>('select count(*)::int as count from users', {
      type: QueryTypes.SELECT,
      transaction,
    }) as [{ count: number }]
    if (count > 0) return undefined
    const passwordHash = await hashPassword(DEMO_PASSWORD)
    const [user] = await sequelize.query<{ id: string }>(
      // Several processes may start on one empty database at once: the first insert wins, the others wait for it
      // and find the address taken.
      `insert into users (email, password_hash, email_confirmed_at) values (:email, :passwordHash, now())
       on conflict do nothing returning id`,
      { type: QueryTypes.SELECT, replacements: { email: DEMO_EMAIL, passwordHash }, transaction },
    )
    if (!user) return undefined
    const userId = user.id
    await sequelize.query(
      `insert into subscriptions (user_id, status, trial_ends_at) values (:userId, 'trial', now() + make_interval(days => :days));
       insert into subscription_status_changes (subscription_id, to_status, cause)
         select id, 'trial', 'demo account created' from subscriptions where user_id = :userId;
       insert into cards (user_id, slug, status, title, business_name, stamps_required, background_color, text_color,
                          stamp_icon, reward, terms)
         values (:userId, 'demo-corner-coffee', 'active', 'Coffee card', 'Corner Coffee', 8, '#3b2416', '#fdf3e7',
                 'coffee', 'A free coffee of your choice', 'One stamp per hot drink. Not valid with other offers.');`,
      { replacements: { userId, days: TRIAL_DAYS }, transaction },
    )
    return { email: DEMO_EMAIL, password: DEMO_PASSWORD }
  })
}
