import { describe, expect, test } from 'vitest'
import {
  goalDescription,
  goalHeadline,
  progressOf,
  progressWords,
  redeemEffect,
  rewardLine,
  rewardsEarned,
  schemeOf,
  stampEffect,
  stampsOfGoal,
  undoEffect,
} from './loyalty-scheme.ts'

const coffee = schemeOf({ stampsRequired: 10, reward: 'A free coffee' })

describe('progressOf', () => {
  test('at the start of a round', () => {
    expect(progressOf(coffee, 0)).toEqual({
      stamps: 0,
      goal: 10,
      collected: 0,
      left: 10,
      earned: false,
      oneToGo: false,
      nextReward: 'A free coffee',
    })
  })

  test('one stamp from the goal', () => {
    expect(progressOf(coffee, 9)).toMatchObject({ collected: 9, left: 1, earned: false, oneToGo: true })
  })

  test('at the goal, and above it once the owner lowered the goal', () => {
    expect(progressOf(coffee, 10)).toMatchObject({ collected: 10, left: 0, earned: true, oneToGo: false })
    expect(progressOf(coffee, 12)).toMatchObject({ stamps: 12, collected: 10, left: 0, earned: true })
  })

  test('a goal of one stamp is one to go from the start', () => {
    expect(progressOf(schemeOf({ stampsRequired: 1 }), 0)).toMatchObject({ oneToGo: true, earned: false, left: 1 })
  })

  test('rewards earned count the one waiting', () => {
    expect(rewardsEarned(coffee, 9, 2)).toBe(2)
    expect(rewardsEarned(coffee, 10, 2)).toBe(3)
  })
})

describe('the words', () => {
  test('the stamps, with and without the word', () => {
    expect(stampsOfGoal(progressOf(coffee, 3))).toBe('3 of 10')
    expect(progressWords(progressOf(coffee, 3))).toBe('3 of 10 stamps')
  })

  test('the reward line, before and once earned', () => {
    expect(rewardLine(progressOf(coffee, 9))).toBe('A free coffee')
    expect(rewardLine(progressOf(coffee, 10))).toBe('Reward earned: A free coffee')
  })

  test('the goal: the poster’s headline (one stamp or several) and the installed pass’s description', () => {
    expect(goalHeadline(coffee)).toBe('Collect 10 stamps, get a reward')
    expect(goalHeadline(schemeOf({ stampsRequired: 1 }))).toBe('Collect 1 stamp, get a reward')
    expect(goalDescription(coffee)).toBe('Collect 10 stamps: A free coffee')
    expect(goalDescription(schemeOf({ stampsRequired: 1, reward: '' }))).toBe('Collect 1 stamps')
  })
})

describe('what an action does to the round', () => {
  test('a stamp adds while it fits, and is refused on a full card or past the stamps left', () => {
    expect(stampEffect(coffee, 0, 3)).toEqual({ ok: true, stampsDelta: 3, rewardsDelta: 0 })
    expect(stampEffect(coffee, 9, 1)).toEqual({ ok: true, stampsDelta: 1, rewardsDelta: 0 })
    expect(stampEffect(coffee, 9, 2)).toEqual({ ok: false, reason: 'too_many', left: 1 })
    expect(stampEffect(coffee, 10, 1)).toEqual({ ok: false, reason: 'full' })
    expect(stampEffect(coffee, 12, 1)).toEqual({ ok: false, reason: 'full' })
  })

  test('a redemption takes the goal off and counts a reward, only once earned', () => {
    expect(redeemEffect(coffee, 9)).toEqual({ ok: false, reason: 'not_earned' })
    expect(redeemEffect(coffee, 10)).toEqual({ ok: true, stampsDelta: -10, rewardsDelta: 1 })
    expect(redeemEffect(coffee, 12)).toEqual({ ok: true, stampsDelta: -10, rewardsDelta: 1 })
  })

  test('an undo takes back the stamps it undoes', () => {
    expect(undoEffect(3)).toEqual({ stampsDelta: -3, rewardsDelta: 0 })
  })
})
