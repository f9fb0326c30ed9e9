import {
  DataTypes,
  literal,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
} from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { CARD_DESIGN_FIELDS, type CardDesignField } from '#app/utils/card-design-fields.ts'
import { cardLogoUrl } from '#app/utils/card-logo.ts'
import { isUuid } from '#app/utils/uuid.ts'

export type CardStatus = 'draft' | 'active' | 'archived'

/** An owner's stamp card (docs/product/holders-and-cards.md). */
export class Card extends Model<InferAttributes<Card>, InferCreationAttributes<Card>> {
  declare id: CreationOptional<string>
  declare userId: string
  declare slug: string
  declare status: CreationOptional<CardStatus>
  declare title: CreationOptional<string>
  declare businessName: CreationOptional<string>
  declare stampsRequired: CreationOptional<number>
  declare backgroundColor: CreationOptional<string>
  declare textColor: CreationOptional<string>
  declare stampIcon: CreationOptional<string>
  declare logo: CreationOptional<Buffer | null>
  declare logoContentType: CreationOptional<string | null>
  declare reward: CreationOptional<string>
  declare terms: CreationOptional<string>
  declare onboardingStep: CreationOptional<string | null>
  declare archivedAt: CreationOptional<Date | null>
  /** Holders get a push when stamped and when the reward is earned (issue #6); the owner may turn it off. */
  declare autoPush: CreationOptional<boolean>
  /** Made by an admin with a pre-made account: /premaid_card shows it. */
  declare premade: CreationOptional<boolean>
  declare createdAt: CreationOptional<Date>
  declare updatedAt: CreationOptional<Date>
}

Card.init(
  {
    id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
    userId: { type: DataTypes.UUID, allowNull: false },
    slug: { type: DataTypes.TEXT, allowNull: false },
    status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'draft' },
    title: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    businessName: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    stampsRequired: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 10 },
    backgroundColor: { type: DataTypes.TEXT, allowNull: false, defaultValue: '#1f3a5f' },
    textColor: { type: DataTypes.TEXT, allowNull: false, defaultValue: '#ffffff' },
    stampIcon: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'star' },
    logo: { type: DataTypes.BLOB, allowNull: true },
    logoContentType: { type: DataTypes.TEXT, allowNull: true },
    reward: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    terms: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    onboardingStep: { type: DataTypes.TEXT, allowNull: true },
    archivedAt: { type: DataTypes.DATE, allowNull: true },
    autoPush: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
    premade: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    createdAt: DataTypes.DATE,
    updatedAt: DataTypes.DATE,
  },
  { sequelize: getSequelize(), tableName: 'cards', underscored: true },
)

export type CardSummary = Pick<InferAttributes<Card>, 'id' | 'title' | 'businessName'>

/** The owner's cards, oldest first, as the account home lists them. */
export async function listOwnerCardSummaries(userId: string): Promise<CardSummary[]> {
  return Card.findAll({
    attributes: ['id', 'title', 'businessName'],
    where: { userId },
    order: [['createdAt', 'ASC']],
    raw: true,
  }) as Promise<CardSummary[]>
}

/** How many cards the owner has (the specification's total_cards). */
export async function countOwnerCards(userId: string): Promise<number> {
  return Card.count({ where: { userId } })
}

/**
 * Cards that hold a place under the plan's card limit: every card not archived. A draft holds one too (else
 * unfinished cards would be unlimited), so how many of them are drafts comes along, for the words that say so.
 */
export async function countOwnerCardPlaces(userId: string): Promise<{ used: number; drafts: number }> {
  const [rows] = (await getSequelize().query(
    `select count(*)::int as used, (count(*) filter (where status = 'draft'))::int as drafts
     from cards where user_id = :userId and status <> 'archived'`,
    { replacements: { userId } },
  )) as [{ used: number; drafts: number }[], unknown]
  return rows[0]!
}

export type OwnerCardWithStats = {
  id: string
  slug: string
  status: CardStatus
  title: string
  businessName: string
  stampsRequired: number
  backgroundColor: string
  textColor: string
  stampIcon: string
  reward: string
  logoUrl: string | null
  holders: number
  stampsSince: number
}

/**
 * The account home's list: each card's design with its holders and the stamps given since a moment (net of
 * undos). One query however many cards the owner has: both counts are indexed subqueries per card.
 */
export async function listOwnerCardsWithStats(userId: string, since: Date): Promise<OwnerCardWithStats[]> {
  const [rows] = (await getSequelize().query(
    `select c.id, c.slug, c.status, c.title, c.business_name, c.stamps_required, c.background_color, c.text_color,
            c.stamp_icon, c.reward, c.logo is not null as has_logo,
            (extract(epoch from c.updated_at) * 1000)::float8 as version,
            (select count(*)::int from passes p where p.card_id = c.id) as holders,
            (select coalesce(sum(case e.kind when 'stamp' then e.count when 'undo' then -e.count else 0 end), 0)::int
               from stamp_events e where e.card_id = c.id and e.created_at >= :since) as stamps_since
     from cards c where c.user_id = :userId
     order by c.status = 'archived', c.created_at`,
    { replacements: { userId, since } },
  )) as [Record<string, unknown>[], unknown]
  return rows.map((row) => ({
    id: row.id as string,
    slug: row.slug as string,
    status: row.status as CardStatus,
    title: row.title as string,
    businessName: row.business_name as string,
    stampsRequired: row.stamps_required as number,
    backgroundColor: row.background_color as string,
    textColor: row.text_color as string,
    stampIcon: row.stamp_icon as string,
    reward: row.reward as string,
    logoUrl: cardLogoUrl({ id: row.id as string, hasLogo: row.has_logo as boolean, version: row.version as number }),
    holders: row.holders as number,
    stampsSince: row.stamps_since as number,
  }))
}

export { isUuid }

export type OwnedCard = Pick<
  InferAttributes<Card>,
  'id' | 'slug' | 'status' | CardDesignField | 'reward' | 'autoPush'
> & { logoUrl: string | null }

/** One of the owner's cards, or null, also for another owner's card or an id that is not a uuid (both: 404). */
export async function getOwnedCard({
  cardId,
  userId,
}: {
  cardId: string | undefined
  userId: string
}): Promise<OwnedCard | null> {
  if (!isUuid(cardId)) return null
  const row = (await Card.findOne({
    attributes: [
      'id',
      'slug',
      'status',
      ...CARD_DESIGN_FIELDS,
      'reward',
      'autoPush',
      [literal('logo is not null'), 'hasLogo'],
      // The same version as the logo's own address computes (milliseconds with their fraction).
      [literal('(extract(epoch from updated_at) * 1000)::float8'), 'version'],
    ],
    where: { id: cardId, userId },
    raw: true,
  })) as (Omit<OwnedCard, 'logoUrl'> & { hasLogo: boolean; version: number }) | null
  if (!row) return null
  const { hasLogo, version, ...card } = row
  return { ...card, logoUrl: cardLogoUrl({ id: card.id, hasLogo, version: Number(version) }) }
}

/**
 * A card's logo by the card's id (its public address, /cards/{cardId}/logo.png), with the card's version and the
 * design a logo is drawn from when none was uploaded (data null). No owner: the logo is public like the card itself
 * (join page, poster, wallet), hence "Public" in the name.
 */
export type PublicCardLogo = {
  data: Buffer | null
  contentType: string
  version: number
  stampIcon: string
  backgroundColor: string
  textColor: string
}

export async function getPublicCardLogo(cardId: string | undefined): Promise<PublicCardLogo | null> {
  if (!isUuid(cardId)) return null
  const [rows] = (await getSequelize().query(
    `select logo as data, coalesce(logo_content_type, 'image/png') as "contentType",
            (extract(epoch from updated_at) * 1000)::float8 as version, stamp_icon as "stampIcon",
            background_color as "backgroundColor", text_color as "textColor"
     from cards where id = :cardId`,
    { replacements: { cardId } },
  )) as [PublicCardLogo[], unknown]
  return rows[0] ?? null
}

/** Archives or restores one of the owner's cards; false when it is not theirs (or already so). */
export async function setOwnedCardArchived({
  cardId,
  userId,
  archived,
}: {
  cardId: string
  userId: string
  archived: boolean
}) {
  const [rows] = (await getSequelize().query(
    archived
      ? `update cards set status = 'archived', archived_at = now() where id = :cardId and user_id = :userId
        and status = 'active' returning id`
      : `update cards set status = 'active', archived_at = null where id = :cardId and user_id = :userId
        and status = 'archived' returning id`,
    { replacements: { cardId, userId } },
  )) as [unknown[], unknown]
  return rows.length > 0
}

/** Deletes one of the owner's cards with its passes, stamps and messages; false when it is not theirs. */
export async function deleteOwnedCard({ cardId, userId }: { cardId: string; userId: string }) {
  if (!isUuid(cardId)) return false
  return (await Card.destroy({ where: { id: cardId, userId } })) > 0
}

/** Turns the holders' automatic stamp and reward pushes on or off for one of the owner's cards. */
export async function setOwnedCardAutoPush({
  cardId,
  userId,
  autoPush,
}: {
  cardId: string
  userId: string
  autoPush: boolean
}) {
  const [count] = await Card.update({ autoPush }, { where: { id: cardId, userId } })
  return count > 0
}
