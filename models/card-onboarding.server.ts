import crypto from 'node:crypto'
import { type InferAttributes, Op, UniqueConstraintError } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { CARD_CONTENT_FIELDS, type CardContentField, type CardDesignField } from '#app/utils/card-design-fields.ts'
import { Card, isUuid } from './card.server.ts'

/** The card builder's queries (onboarding pages and /api/onboarding), every one scoped by its owner. */
export type OnboardingCard = Pick<
  InferAttributes<Card>,
  'id' | 'slug' | 'status' | CardContentField | 'onboardingStep' | 'logoContentType' | 'createdAt'
>

const ATTRIBUTES = [
  'id',
  'slug',
  'status',
  ...CARD_CONTENT_FIELDS,
  'onboardingStep',
  'logoContentType',
  'createdAt',
] as const satisfies ReadonlyArray<keyof OnboardingCard>

export type CardDesignFields = Pick<InferAttributes<Card>, CardDesignField>
export type CardLogo = { data: Buffer; contentType: string }

/** One of the owner's cards; null for another owner's card or an id that is not a uuid (both answer 404). */
export async function findOwnerCard(userId: string, cardId: string | null | undefined): Promise<OnboardingCard | null> {
  if (!isUuid(cardId ?? undefined)) return null
  return Card.findOne({
    attributes: [...ATTRIBUTES],
    where: { id: cardId!, userId },
    raw: true,
  }) as Promise<OnboardingCard | null>
}

/** The owner's newest card that is not archived (the default of the card-ready and qr-code calls). */
export async function findNewestOwnerCard(userId: string): Promise<OnboardingCard | null> {
  return Card.findOne({
    attributes: [...ATTRIBUTES],
    where: { userId, status: { [Op.ne]: 'archived' } },
    order: [['createdAt', 'DESC']],
    raw: true,
  }) as Promise<OnboardingCard | null>
}

/** The owner's newest card an admin made for them (a pre-made account), not archived: /premaid_card shows it. */
export async function findPremadeOwnerCard(userId: string): Promise<OnboardingCard | null> {
  return Card.findOne({
    attributes: [...ATTRIBUTES],
    where: { userId, premade: true, status: { [Op.ne]: 'archived' } },
    order: [['createdAt', 'DESC']],
    raw: true,
  }) as Promise<OnboardingCard | null>
}

/** The owner's newest card whose onboarding is not finished: /main offers to continue it. */
export async function findUnfinishedOwnerCard(userId: string): Promise<OnboardingCard | null> {
  return Card.findOne({
    attributes: [...ATTRIBUTES],
    where: { userId, status: { [Op.ne]: 'archived' }, onboardingStep: { [Op.ne]: null } },
    order: [['createdAt', 'DESC']],
    raw: true,
  }) as Promise<OnboardingCard | null>
}

/** The card's stored logo, for the builder's preview. */
export async function findOwnerCardLogo(userId: string, cardId: string): Promise<CardLogo | null> {
  const card = await Card.findOne({ attributes: ['logo', 'logoContentType'], where: { id: cardId, userId }, raw: true })
  if (!card?.logo || !card.logoContentType) return null
  return { data: card.logo, contentType: card.logoContentType }
}

/** A slug from the business name and a random suffix: readable in the QR's address, never guessed from the name. */
export function cardSlug(businessName: string): string {
  const base = businessName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '')
  const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789'
  const suffix = Array.from(crypto.randomBytes(6), (byte) => alphabet[byte % alphabet.length]).join('')
  return `${base || 'card'}-${suffix}`
}

/** A new draft card at the reward step. */
export async function createDraftCard(
  userId: string,
  design: CardDesignFields,
  logo: CardLogo | null,
): Promise<OnboardingCard> {
  for (let attempt = 1; ; attempt++) {
    try {
      const card = await Card.create({
        userId,
        slug: cardSlug(design.businessName),
        status: 'draft',
        ...design,
        logo: logo?.data ?? null,
        logoContentType: logo?.contentType ?? null,
        onboardingStep: 'card_reward',
      })
      return (await findOwnerCard(userId, card.id))!
    } catch (error) {
      // A slug taken by chance: draw another suffix.
      if (error instanceof UniqueConstraintError && attempt < 5) continue
      throw error
    }
  }
}

/** Saves the design of an existing card; `onboardingStep` moves forward only (a finished card stays finished). */
export async function updateCardDesign(
  userId: string,
  cardId: string,
  design: CardDesignFields,
  logo: CardLogo | 'remove' | null,
): Promise<void> {
  const logoFields =
    logo === 'remove'
      ? { logo: null, logoContentType: null }
      : logo
        ? { logo: logo.data, logoContentType: logo.contentType }
        : {}
  await Card.update({ ...design, ...logoFields }, { where: { id: cardId, userId } })
  await advanceOnboardingStep(userId, cardId, 'card_reward')
}

/**
 * Saves the reward and terms and makes the card active (holders can join from then on). Returns whether this call
 * activated the owner's first card: no other card of theirs was ever active.
 */
export async function saveCardReward(
  userId: string,
  cardId: string,
  { reward, terms }: { reward: string; terms: string },
): Promise<{ firstCardActivated: boolean }> {
  return getSequelize().transaction(async (transaction) => {
    const card = await Card.findOne({
      attributes: ['status'],
      where: { id: cardId, userId },
      lock: transaction.LOCK.UPDATE,
      transaction,
    })
    if (!card) return { firstCardActivated: false }
    const activates = card.status === 'draft'
    await Card.update(
      { reward, terms, ...(activates ? { status: 'active' as const } : {}) },
      { where: { id: cardId, userId }, transaction },
    )
    if (!activates) return { firstCardActivated: false }
    const others = await Card.count({
      where: { userId, id: { [Op.ne]: cardId }, status: { [Op.ne]: 'draft' } },
      transaction,
    })
    return { firstCardActivated: others === 0 }
  })
}

// The order of ONBOARDING_STEPS (app/utils/card-design-steps.ts); models do not import from the app.
const STEP_ORDER = ['main', 'card_reward', 'card_ready', 'your_qr_code', 'easy_way', 'place_your_qr', 'win_win']

/**
 * Moves the card's onboarding to `step` unless it is already further along or finished (null): going back to an
 * earlier page and saving again never sends the owner backwards later.
 */
export async function advanceOnboardingStep(userId: string, cardId: string, step: string): Promise<void> {
  const target = STEP_ORDER.indexOf(step)
  await getSequelize().query(
    `update cards set onboarding_step = :step
     where id = :cardId and user_id = :userId and onboarding_step is not null
       and coalesce(array_position(array[:order]::text[], onboarding_step), 0) - 1 < :target`,
    { replacements: { step, cardId, userId, order: STEP_ORDER, target } },
  )
}

/**
 * Deletes the owner's unfinished draft: a card still without its reward, so no holder can have joined it. False
 * when the card is not such a draft (another owner's, finished, or rewarded meanwhile).
 */
export async function discardUnfinishedDraft(userId: string, cardId: string): Promise<boolean> {
  if (!isUuid(cardId)) return false
  return (await Card.destroy({ where: { id: cardId, userId, status: 'draft', onboardingStep: { [Op.ne]: null } } })) > 0
}

/** The owner went through the last step: nothing left to resume. */
export async function finishOnboarding(userId: string, cardId: string): Promise<void> {
  await Card.update({ onboardingStep: null }, { where: { id: cardId, userId } })
}
