import { expect, test } from 'vitest'
import {
  addMessageRequest,
  cardLogoAddress,
  loyaltyClassFor,
  loyaltyObjectFor,
  loyaltyObjectStampsPatch,
} from './google-wallet-objects.server.ts'

const card = {
  cardId: '7f0c1a52-3f4b-4c55-9a59-1a2b3c4d5e6f',
  title: 'Coffee card',
  businessName: 'Corner Coffee',
  stampsRequired: 5,
  backgroundColor: '#112233',
  reward: 'A free coffee',
  terms: '',
  cardVersion: 1_700_000_000_123.4,
}
const names = { issuerId: '3388000000022222222', appUrl: 'https://stampwise.example' }

test('the class: ids under the issuer, the logo address with the card’s version, no empty terms module', () => {
  const loyaltyClass = loyaltyClassFor(card, names)
  expect(loyaltyClass.id).toBe(`3388000000022222222.card-${card.cardId}`)
  expect(loyaltyClass.programLogo?.sourceUri?.uri).toBe(
    `https://stampwise.example/cards/${card.cardId}/logo.png?v=${Math.round(card.cardVersion).toString(36)}`,
  )
  expect(cardLogoAddress(names.appUrl, card)).toBe(loyaltyClass.programLogo?.sourceUri?.uri)
  expect(loyaltyClass.textModulesData).toEqual([])
  expect(loyaltyClassFor({ ...card, terms: 'One a day' }, names).textModulesData).toEqual([
    { id: 'terms', header: 'Terms', body: 'One a day' },
  ])
})

test('the object and its PATCH show the stamps, and the reward once earned', () => {
  const pass = { passId: 'a7e1b6a4-0d6c-4bb0-8f0b-9c6f1e2d3c4b', shortCode: 'K7PQ2ZXM', stamps: 4 }
  const object = loyaltyObjectFor(pass, card, names)
  expect(object).toMatchObject({
    id: `3388000000022222222.pass-${pass.passId}`,
    classId: `3388000000022222222.card-${card.cardId}`,
    state: 'ACTIVE',
    loyaltyPoints: { label: 'Stamps', balance: { string: '4 of 5' } },
    textModulesData: [{ body: 'A free coffee' }],
  })
  expect(loyaltyObjectStampsPatch(5, card, true)).toEqual({
    loyaltyPoints: { label: 'Stamps', balance: { string: '5 of 5' } },
    textModulesData: [{ id: 'reward', header: 'Reward', body: 'Reward earned: A free coffee' }],
    notifyPreference: 'NOTIFY_ON_UPDATE',
  })
  expect(loyaltyObjectStampsPatch(5, card, false)).not.toHaveProperty('notifyPreference')
})

test('a message notifies within Google’s limit and is only shown beyond it', () => {
  const message = { id: 'message-1', title: 'Happy hour', body: 'Two for one' }
  expect(addMessageRequest(message, true).message?.messageType).toBe('TEXT_AND_NOTIFY')
  expect(addMessageRequest(message, false).message).toEqual({
    id: 'message-1',
    header: 'Happy hour',
    body: 'Two for one',
    messageType: 'TEXT',
  })
})
