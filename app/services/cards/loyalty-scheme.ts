/**
 * The loyalty scheme of a card (issue 31, item 3; docs/decisions/056-loyalty-scheme-seam.md): what a round asks and
 * gives, where a pass stands in it, the words for that, and what a stamp, an undo and a redemption do to the round.
 * Pages, pushes, wallets, exports and stamping read it here, so a new scheme (a reward ladder, stamp expiry) changes
 * this module and its SQL twin, models/loyalty-scheme.server.ts, which says the same in SQL (a test holds them
 * together). The rules are docs/product/holders-and-cards.md's ("Stamping"). Pure: components import it, so it
 * reaches the browser.
 */

/** What a card's round asks (the stamps required: its goal) and gives (one reward, at the goal). */
export type LoyaltyScheme = { stampsRequired: number; reward: string }

/** The scheme of a card, or of anything carrying its stamps required (the reward is empty where it is not read). */
export const schemeOf = (card: { stampsRequired: number; reward?: string | null }): LoyaltyScheme => ({
  stampsRequired: card.stampsRequired,
  reward: card.reward ?? '',
})

export type Progress = {
  stamps: number
  /** The stamps the round asks. */
  goal: number
  /** The stamps the card's grid fills: at most the goal (an owner who lowered it leaves passes above it). */
  collected: number
  /** Stamps still to give before the reward (0 once earned). */
  left: number
  /** The reward is earned and waits to be redeemed. */
  earned: boolean
  /** One stamp more earns it. */
  oneToGo: boolean
  /** The reward this round works toward, or waits with once earned. */
  nextReward: string
}

export function progressOf(scheme: LoyaltyScheme, stamps: number): Progress {
  const goal = scheme.stampsRequired
  return {
    stamps,
    goal,
    collected: Math.max(Math.min(stamps, goal), 0),
    left: Math.max(goal - stamps, 0),
    earned: stamps >= goal,
    oneToGo: stamps === goal - 1,
    nextReward: scheme.reward,
  }
}

/** The rewards a holder has earned: those redeemed, and the one waiting. */
export const rewardsEarned = (scheme: LoyaltyScheme, stamps: number, rewardsRedeemed: number) =>
  rewardsRedeemed + (progressOf(scheme, stamps).earned ? 1 : 0)

// The words. Each is the one place its text is made: they stay byte for byte what holders and owners have seen.

type Counted = Pick<Progress, 'stamps' | 'goal'>

/** '3 of 10': the wallets' stamps field and the holders list. */
export const stampsOfGoal = ({ stamps, goal }: Counted) => `${stamps} of ${goal}`

/** '3 of 10 stamps': the pass page, the scan page, the stamp push. */
export const progressWords = (progress: Counted) => `${stampsOfGoal(progress)} stamps`

/** 'Reward earned: {reward}': the pass page, the wallets, the reward push. */
export const rewardEarnedWords = (reward: string) => `Reward earned: ${reward}`

/** The wallets' reward field: the reward, announced as earned once it is. */
export const rewardLine = ({ earned, nextReward }: Pick<Progress, 'earned' | 'nextReward'>) =>
  earned ? rewardEarnedWords(nextReward) : nextReward

/** The poster's headline: 'Collect 10 stamps, get a reward'. */
export const goalHeadline = ({ stampsRequired }: Pick<LoyaltyScheme, 'stampsRequired'>) =>
  `Collect ${stampsRequired} ${stampsRequired === 1 ? 'stamp' : 'stamps'}, get a reward`

/** The installed pass's description (its web manifest): 'Collect 10 stamps: a free coffee'. */
export const goalDescription = ({ stampsRequired, reward }: LoyaltyScheme) =>
  reward ? `Collect ${stampsRequired} stamps: ${reward}` : `Collect ${stampsRequired} stamps`

// What an action does to the round: the pass's counters change by these deltas (models/stamping.server.ts).

export type RoundChange = { stampsDelta: number; rewardsDelta: number }

/** `count` stamps: given while they fit in the round; refused on a full card, or with the stamps `left`. */
export type StampEffect =
  ({ ok: true } & RoundChange) | { ok: false; reason: 'full' } | { ok: false; reason: 'too_many'; left: number }

export function stampEffect(scheme: LoyaltyScheme, stamps: number, count: number): StampEffect {
  const left = scheme.stampsRequired - stamps
  if (left <= 0) return { ok: false, reason: 'full' }
  if (count > left) return { ok: false, reason: 'too_many', left }
  return { ok: true, stampsDelta: count, rewardsDelta: 0 }
}

/** A redemption takes the goal's stamps off (a new round starts, keeping any above it) and counts the reward. */
export type RedeemEffect = ({ ok: true } & RoundChange) | { ok: false; reason: 'not_earned' }

export function redeemEffect(scheme: LoyaltyScheme, stamps: number): RedeemEffect {
  if (!progressOf(scheme, stamps).earned) return { ok: false, reason: 'not_earned' }
  return { ok: true, stampsDelta: -scheme.stampsRequired, rewardsDelta: 1 }
}

/** An undo takes back the stamps of the stamp it undoes. */
export const undoEffect = (count: number): RoundChange => ({ stampsDelta: -count, rewardsDelta: 0 })
