/**
 * The loyalty scheme in SQL: the twin of app/services/cards/loyalty-scheme.ts for statements that decide in the
 * database (audiences, automatic messages, the holders list), since models import no service. Each fragment reads a
 * pass `pass` of its card `card` (aliases, 'p' and 'c' by default) and says what progressOf says of them;
 * tests/integration/loyalty-scheme.test.ts holds the two together. The triggers of migrations 0011 and 0012 read the
 * card's goal themselves (docs/decisions/056-loyalty-scheme-seam.md).
 */

/** The stamps the card's round asks. */
export const goalSql = (card = 'c') => `${card}.stamps_required`

/** The pass has earned the reward and not redeemed it (progressOf's `earned`). */
export const rewardEarnedSql = (pass = 'p', card = 'c') => `${pass}.stamps >= ${goalSql(card)}`

/** One stamp more earns the reward (progressOf's `oneToGo`). */
export const oneToGoSql = (pass = 'p', card = 'c') => `${pass}.stamps = ${goalSql(card)} - 1`

/** The rewards the holder has earned: those redeemed and the one waiting (rewardsEarned). */
export const rewardsEarnedSql = (pass = 'p', card = 'c') =>
  `${pass}.rewards_redeemed + case when ${rewardEarnedSql(pass, card)} then 1 else 0 end`
