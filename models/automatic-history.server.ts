import { QueryTypes } from 'sequelize'
import { getSequelize } from '#app/server/db.server.ts'
import { AUTOMATIC_NOTIFICATION_KINDS, type AutomaticNotificationKind } from '#app/utils/automations.ts'
import { addDays, startOfLocalDay, type LocalDay } from '#app/utils/local-time.ts'
import { sumChannels, type ChannelBreakdown } from '#app/utils/push-channels.ts'
import { isUuid } from './card.server.ts'

/**
 * The history's automatic messages (the stamp push, 'reward earned' and the automatic kinds: one notification per
 * holder), counted per kind and per local day of the business rather than listed one by one: a busy card sends
 * thousands a day. A message's day is when it went out (queued_at); one skipped or still unsent, when it was due
 * (scheduled_for) or made.
 */
export type AutomaticKindCounts = {
  kind: AutomaticNotificationKind
  /** Messages that went out (queued, sending, done, failed). */
  messages: number
  /** Not sent: over the holder's daily or weekly cap. */
  skippedCap: number
  /** Not sent: the owner's plan had ended. */
  skippedPlan: number
  sent: number
  failed: number
  pending: number
  /** Devices per channel; the three fields above are their sums. */
  channels: ChannelBreakdown
}
export type AutomaticDay = { day: LocalDay; kinds: AutomaticKindCounts[] }

/** The moment that places a message on a day (see above); the same expression in the filter and the grouping. */
const MOMENT = 'coalesce(n.queued_at, n.scheduled_for, n.created_at)'
/**
 * A message waits at most a day past its creation (quiet hours end within a day), so the index on (card_id,
 * created_at) bounds the scan with this margin before the first day.
 */
const CREATED_MARGIN = "interval '2 days'"
const SHOWN_STATUSES = ['queued', 'sending', 'done', 'failed', 'skipped']

const CHANNELS = [
  ['web', 'deliveries', 'web'],
  ['appleWallet', 'apple_pushes', 'apple'],
  ['googleWallet', 'google_wallet_updates', 'google'],
] as const

/**
 * Each channel's device rows of the shown messages, as (day, kind, channel, status). A join, not a count per message:
 * the planner picks index lookups or one pass over the table, whichever is cheaper for the day range, and a busy
 * card's tens of thousands of stamp pushes cost no aggregate each. A skipped message has no devices, and a stamp push
 * goes by web push alone (docs/decisions/043-scheduled-broadcasts-and-audiences.md), so the wallets' tables are
 * searched only for the other kinds.
 */
const DEVICE_ROWS = CHANNELS.map(
  ([channel, table, prefix]) => `select s.day, s.kind, '${prefix}' as channel, x.status
       from shown s join ${table} x on x.notification_id = s.id
       where s.status <> 'skipped'${channel === 'web' ? '' : ` and s.kind <> 'stamp'`}`,
).join('\n       union all\n       ')

/** `web_sent`, `web_failed`, … ('gone' counts as failed, as the owner reads it). */
const DEVICE_COUNTS = CHANNELS.flatMap(([, , prefix]) => [
  `count(*) filter (where channel = '${prefix}' and status = 'sent') as ${prefix}_sent`,
  `count(*) filter (where channel = '${prefix}' and status in ('failed', 'gone')) as ${prefix}_failed`,
  `count(*) filter (where channel = '${prefix}' and status = 'pending') as ${prefix}_pending`,
]).join(',\n              ')

type DayRow = { day: string; kind: AutomaticNotificationKind } & Record<string, number | string>

/**
 * One card's automatic messages per kind and local day, for the `days` days ending with `lastDay` (in the owner's
 * zone), newest day first, and whether there are older ones. One query; null when the card is not the owner's.
 */
export async function listAutomaticHistory(
  { cardId, userId }: { cardId: string; userId: string },
  { timeZone, lastDay, days = 30 }: { timeZone: string; lastDay: LocalDay; days?: number },
): Promise<{ days: AutomaticDay[]; older: boolean; firstDay: LocalDay; lastDay: LocalDay } | null> {
  if (!isUuid(cardId) || !isUuid(userId)) return null
  const firstDay = addDays(lastDay, -(days - 1))
  const from = startOfLocalDay(firstDay, timeZone)
  const to = startOfLocalDay(addDays(lastDay, 1), timeZone)
  const sums = CHANNELS.flatMap(([, , prefix]) =>
    ['sent', 'failed', 'pending'].map((count) => `'${prefix}_${count}', coalesce(d.${prefix}_${count}, 0)`),
  ).join(', ')
  const [row] = await getSequelize().query<{ owned: boolean; days: DayRow[] | string; older: boolean }>(
    `with shown as materialized (
       select n.id, n.kind, (${MOMENT} at time zone :timeZone)::date as day, n.status, n.skipped_reason
       from notifications n
       where n.card_id = :cardId and n.user_id = :userId and n.kind in (:kinds) and n.status in (:statuses)
         and n.created_at >= :from::timestamptz - ${CREATED_MARGIN} and n.created_at < :to
         and ${MOMENT} >= :from and ${MOMENT} < :to
     ), messages as (
       select day, kind, count(*) filter (where status <> 'skipped') as messages,
              count(*) filter (where skipped_reason in ('daily_cap', 'weekly_cap')) as skipped_cap,
              count(*) filter (where skipped_reason = 'plan_ended') as skipped_plan
       from shown group by day, kind
     ), devices as (
       select day, kind,
              ${DEVICE_COUNTS}
       from (
       ${DEVICE_ROWS}
       ) rows group by day, kind
     ), per_day as (
       select m.day, json_build_object('day', m.day::text, 'kind', m.kind, 'messages', m.messages,
                'skipped_cap', m.skipped_cap, 'skipped_plan', m.skipped_plan, ${sums}) as counts
       from messages m left join devices d on d.day = m.day and d.kind = m.kind
     )
     select exists (select 1 from cards c where c.id = :cardId and c.user_id = :userId) as owned,
            (select coalesce(json_agg(counts order by day desc), '[]') from per_day) as days,
            exists (
              select 1 from notifications n
              where n.card_id = :cardId and n.user_id = :userId and n.kind in (:kinds) and n.status in (:statuses)
                and n.created_at < :from
            ) as older`,
    {
      replacements: {
        cardId,
        userId,
        timeZone,
        from,
        to,
        kinds: [...AUTOMATIC_NOTIFICATION_KINDS],
        statuses: SHOWN_STATUSES,
      },
      type: QueryTypes.SELECT,
    },
  )
  if (!row?.owned) return null
  const rows = (typeof row.days === 'string' ? JSON.parse(row.days) : row.days) as DayRow[]
  const byDay = new Map<LocalDay, AutomaticKindCounts[]>()
  for (const counts of rows) {
    const channels = Object.fromEntries(
      CHANNELS.map(([channel, , prefix]) => [
        channel,
        {
          sent: Number(counts[`${prefix}_sent`]),
          failed: Number(counts[`${prefix}_failed`]),
          pending: Number(counts[`${prefix}_pending`]),
        },
      ]),
    ) as ChannelBreakdown
    const list = byDay.get(counts.day) ?? []
    list.push({
      kind: counts.kind,
      messages: Number(counts.messages),
      skippedCap: Number(counts.skipped_cap),
      skippedPlan: Number(counts.skipped_plan),
      ...sumChannels(channels),
      channels,
    })
    byDay.set(counts.day, list)
  }
  const order = (kind: AutomaticNotificationKind) => AUTOMATIC_NOTIFICATION_KINDS.indexOf(kind)
  return {
    days: [...byDay].map(([day, kinds]) => ({ day, kinds: kinds.sort((a, b) => order(a.kind) - order(b.kind)) })),
    older: Boolean(row.older),
    firstDay,
    lastDay,
  }
}
