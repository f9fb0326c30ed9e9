import { describe, expect, test } from 'vitest'
import { STAMP_PUSH_BODY_MAX, STAMP_PUSH_TITLE_MAX, stampPushTexts } from './stamp-push.server.ts'

const pass = {
  stamps: 3,
  stampsRequired: 10,
  businessName: 'Corner Café',
  cardTitle: 'Coffee card',
  reward: 'A free coffee',
}

describe('stampPushTexts', () => {
  test('the words the database wrote before: a stamp, several stamps, the reward', () => {
    expect(stampPushTexts(pass, 1)).toEqual({
      title: 'Corner Café',
      stampBody: 'You got a stamp: 3 of 10 stamps',
      rewardBody: 'Reward earned: A free coffee',
    })
    expect(stampPushTexts(pass, 3).stampBody).toBe('You got 3 stamps: 3 of 10 stamps')
  })

  test('an empty business name, title or reward falls back in order', () => {
    expect(stampPushTexts({ ...pass, businessName: '' }, 1).title).toBe('Coffee card')
    expect(stampPushTexts({ ...pass, businessName: '', cardTitle: '' }, 1).title).toBe('Stampwise')
    expect(stampPushTexts({ ...pass, reward: '' }, 1).rewardBody).toBe('Reward earned: your reward')
  })

  test('cuts the title to 50 and the body to 180 characters, never inside an emoji', () => {
    const texts = stampPushTexts({ ...pass, businessName: '☕'.repeat(60), reward: '🎁'.repeat(200) }, 1)
    expect(Array.from(texts.title)).toHaveLength(STAMP_PUSH_TITLE_MAX)
    expect(texts.title).toBe('☕'.repeat(50))
    expect(Array.from(texts.rewardBody)).toHaveLength(STAMP_PUSH_BODY_MAX)
    expect(texts.rewardBody).toBe(`Reward earned: ${'🎁'.repeat(180 - 'Reward earned: '.length)}`)
  })
})
