import { expect, test } from 'vitest'
import { rewardInSentence } from './reward-in-sentence.ts'

test.each([
  ['A free coffee', 'a free coffee'],
  ['Free cake of your choice', 'free cake of your choice'],
  ['The 10th coffee on us', 'the 10th coffee on us'],
  ['  One free bagel ', 'one free bagel'],
  ['Lavazza espresso', 'Lavazza espresso'],
  ['LAVAZZA espresso', 'LAVAZZA espresso'],
  ['PB&J sandwich', 'PB&J sandwich'],
  ['10% off your next order', '10% off your next order'],
  ['a free coffee', 'a free coffee'],
  ['A', 'a'],
  ['', ''],
])('%j in a sentence reads %j', (reward, expected) => {
  expect(rewardInSentence(reward)).toBe(expected)
})
