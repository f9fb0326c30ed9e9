import crypto from 'node:crypto'
import { expect, test } from 'vitest'
import { progressOf, rewardsEarned, schemeOf } from '#app/services/cards/loyalty-scheme.ts'
import { goalSql, oneToGoSql, rewardEarnedSql, rewardsEarnedSql } from '#models/loyalty-scheme.server.ts'
import { createUser, sql } from '#tests/support/auth-api.ts'

/**
 * The loyalty scheme's SQL twin (models/loyalty-scheme.server.ts) says what the module says
 * (app/services/cards/loyalty-scheme.ts; docs/decisions/056-loyalty-scheme-seam.md): for cards of several goals and
 * passes at the start of a round, one stamp from the goal, at it and above it (an owner lowered the goal), the
 * database's goal, earned, one to go and rewards earned are progressOf's and rewardsEarned's.
 */
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
const shortCode = () => Array.from(crypto.randomBytes(8), (byte) => ALPHABET[byte % 32]).join('')

test.each([1, 2, 10, 20])('a goal of %i: the SQL fragments agree with progressOf', async (goal) => {
  const user = await createUser()
  const [card] = await sql<{ id: string }>(
    `insert into cards (user_id, slug, status, title, stamps_required, reward)
     values (:userId, :slug, 'active', 'Coffee card', :goal, 'A free coffee') returning id`,
    { userId: user.id, slug: `scheme-${crypto.randomBytes(5).toString('hex')}`, goal },
  )
  const stampsOfPasses = [...new Set([0, goal - 1, goal, goal + 2])]
  for (const stamps of stampsOfPasses) {
    await sql(
      `insert into passes (card_id, short_code, stamps, rewards_redeemed) values (:cardId, :code, :stamps, 2)`,
      { cardId: card!.id, code: shortCode(), stamps },
    )
  }
  const rows = await sql<{ stamps: number; goal: number; earned: boolean; one_to_go: boolean; rewards: number }>(
    `select p.stamps, ${goalSql('c')} as goal, ${rewardEarnedSql('p', 'c')} as earned,
            ${oneToGoSql('p', 'c')} as one_to_go, ${rewardsEarnedSql('p', 'c')} as rewards
     from passes p join cards c on c.id = p.card_id where c.id = :cardId order by p.stamps`,
    { cardId: card!.id },
  )
  const scheme = schemeOf({ stampsRequired: goal, reward: 'A free coffee' })
  expect(rows).toEqual(
    stampsOfPasses.map((stamps) => {
      const progress = progressOf(scheme, stamps)
      return {
        stamps,
        goal: progress.goal,
        earned: progress.earned,
        one_to_go: progress.oneToGo,
        rewards: rewardsEarned(scheme, stamps, 2),
      }
    }),
  )
})
