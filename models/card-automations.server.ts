import { QueryTypes } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import {
  AUTOMATION_KINDS,
  defaultAutomation,
  isWaitingKind,
  type AutomationKind,
  type AutomationSetting,
} from '#app/utils/automations.ts'
import { isUuid } from './card.server.ts'

/**
 * A card's automatic messages as its owner set them (card_automations, migration 0013), with the stamp push, quiet
 * hours and caps kept on the card. Every statement is scoped by the card's owner.
 */
export type StoredAutomation = AutomationSetting & {
  /** When the owner last turned it on; null when never (or a default). */
  enabledAt: Date | null
  /** False for a kind the owner never saved: the card's defaults. */
  saved: boolean
}

export type CardAutomations = {
  automations: Record<AutomationKind, StoredAutomation>
  /** cards.auto_push: the push on every stamp. */
  stampPush: boolean
  /** Minutes after local midnight in the owner's zone; start = end means no quiet hours. */
  quietStart: number
  quietEnd: number
  dailyCap: number
  weeklyCap: number
}

type Row = {
  business_name: string
  title: string
  reward: string
  stamps_required: number
  auto_push: boolean
  quiet_start: number
  quiet_end: number
  automatic_daily_cap: number
  automatic_weekly_cap: number
  kind: AutomationKind | null
  enabled: boolean | null
  a_title: string | null
  a_body: string | null
  days: number | null
  enabled_at: Date | string | null
}

/** The settings of one of the owner's cards (one query); null for another owner's card or none. */
export async function getCardAutomations({
  userId,
  cardId,
}: {
  userId: string
  cardId: string
}): Promise<CardAutomations | null> {
  if (!isUuid(cardId) || !isUuid(userId)) return null
  const rows = await getSequelize().query<Row>(
    `select c.business_name, c.title, c.reward, c.stamps_required, c.auto_push, c.quiet_start, c.quiet_end,
            c.automatic_daily_cap, c.automatic_weekly_cap,
            a.kind, a.enabled, a.title as a_title, a.body as a_body, a.days, a.enabled_at
     from cards c left join card_automations a on a.card_id = c.id
     where c.id = :cardId and c.user_id = :userId`,
    { replacements: { cardId, userId }, type: QueryTypes.SELECT },
  )
  const card = rows[0]
  if (!card) return null
  const words = {
    businessName: card.business_name ?? '',
    title: card.title ?? '',
    reward: card.reward ?? '',
    stampsRequired: Number(card.stamps_required),
  }
  const automations = Object.fromEntries(
    AUTOMATION_KINDS.map((kind) => {
      const stored = rows.find((row) => row.kind === kind)
      const setting: StoredAutomation = stored
        ? {
            kind,
            enabled: Boolean(stored.enabled),
            title: stored.a_title!,
            body: stored.a_body!,
            days: stored.days === null ? null : Number(stored.days),
            enabledAt: stored.enabled_at ? new Date(stored.enabled_at) : null,
            saved: true,
          }
        : { ...defaultAutomation(kind, words), enabledAt: null, saved: false }
      return [kind, setting]
    }),
  ) as Record<AutomationKind, StoredAutomation>
  return {
    automations,
    stampPush: Boolean(card.auto_push),
    quietStart: Number(card.quiet_start),
    quietEnd: Number(card.quiet_end),
    dailyCap: Number(card.automatic_daily_cap),
    weeklyCap: Number(card.automatic_weekly_cap),
  }
}

/**
 * Saves one automatic message of one of the owner's cards (insert or update); false when the card is not theirs.
 * Turning it on sets enabled_at to `now`, so a time-based message goes only for occasions due from then on (no flood
 * of every old occasion); saving the words of one that stays on keeps enabled_at. Two saves at once: the second
 * waits on the row and sees it already on.
 */
export async function saveCardAutomation({
  userId,
  cardId,
  kind,
  enabled,
  title,
  body,
  days,
  now = new Date(),
}: {
  userId: string
  cardId: string
  kind: AutomationKind
  enabled: boolean
  title: string
  body: string
  days: number | null
  now?: Date
}): Promise<boolean> {
  if (!isUuid(cardId) || !isUuid(userId)) return false
  const rows = await getSequelize().query<{ card_id: string }>(
    `insert into card_automations as a (card_id, kind, enabled, title, body, days, enabled_at, updated_at)
     select c.id, :kind, :enabled, :title, :body, :days, case when :enabled then :now::timestamptz end, :now
     from cards c where c.id = :cardId and c.user_id = :userId
     on conflict (card_id, kind) do update set
       enabled = excluded.enabled, title = excluded.title, body = excluded.body, days = excluded.days,
       enabled_at = case when excluded.enabled and not a.enabled then excluded.enabled_at else a.enabled_at end,
       updated_at = excluded.updated_at
     returning a.card_id`,
    {
      replacements: {
        userId,
        cardId,
        kind,
        enabled,
        title,
        body,
        // The column's check: days exactly for the two that wait.
        days: isWaitingKind(kind) ? days : null,
        now,
      },
      type: QueryTypes.SELECT,
    },
  )
  return rows.length > 0
}

/** Quiet hours (start = end: none) and caps per holder of one of the owner's cards; false when it is not theirs. */
export async function saveCardDeliveryRules({
  userId,
  cardId,
  quietStart,
  quietEnd,
  dailyCap,
  weeklyCap,
}: {
  userId: string
  cardId: string
  quietStart: number
  quietEnd: number
  dailyCap: number
  weeklyCap: number
}): Promise<boolean> {
  if (!isUuid(cardId) || !isUuid(userId)) return false
  // cards.updated_at is left alone: it versions what a pass shows (its icon's address), which this does not change.
  const rows = await getSequelize().query<{ id: string }>(
    `update cards set quiet_start = :quietStart, quiet_end = :quietEnd, automatic_daily_cap = :dailyCap,
            automatic_weekly_cap = :weeklyCap
     where id = :cardId and user_id = :userId returning id`,
    { replacements: { userId, cardId, quietStart, quietEnd, dailyCap, weeklyCap }, type: QueryTypes.SELECT },
  )
  return rows.length > 0
}
