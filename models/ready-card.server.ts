import { type Transaction } from 'sequelize'
import { Card } from './card.server.ts'

/**
 * Cards an account is created with, active at once and with nothing left to onboard: a pre-made account's card
 * (premade-account.server.ts) and the demo account's (demo-account.server.ts).
 */
export type ReadyCardDesign = {
  businessName: string
  title: string
  stampsRequired: number
  backgroundColor: string
  textColor: string
  stampIcon: string
  reward: string
  terms: string
}

/** Whether a card already uses the slug (any owner's: slugs are public addresses). */
export async function isCardSlugTaken(slug: string, transaction?: Transaction): Promise<boolean> {
  return (await Card.findOne({ attributes: ['id'], where: { slug }, transaction })) !== null
}

/** Creates the owner's active card; `premade` marks the one /premaid_card shows. Returns its id. */
export async function createReadyCard(
  { userId, slug, premade, design }: { userId: string; slug: string; premade: boolean; design: ReadyCardDesign },
  transaction?: Transaction,
): Promise<{ id: string }> {
  const card = await Card.create(
    { userId, slug, status: 'active', onboardingStep: null, premade, ...design },
    { transaction },
  )
  return { id: card.id }
}
