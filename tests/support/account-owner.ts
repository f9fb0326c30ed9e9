import { createUser, logIn, sql } from './auth-api.ts'
import { type TestServer } from './test-server.ts'

/** A confirmed owner on a fresh 14-day trial: what every /account page needs (its layout reads the plan). */
export async function createOwner() {
  const user = await createUser()
  await sql(
    `with s as (insert into subscriptions (user_id, status, trial_ends_at)
       values (:userId, 'trial', now() + interval '14 days') returning id)
     insert into subscription_status_changes (subscription_id, to_status, cause) select id, 'trial', 'test owner' from s`,
    { userId: user.id },
  )
  return user
}

/** A new owner (createOwner) signed in on `server`: the owner and the session cookie. */
export async function signedInOwner(server: TestServer) {
  const owner = await createOwner()
  return { ...owner, cookie: await logIn(server, owner.email) }
}
