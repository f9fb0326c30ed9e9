/**
 * Automatic messages (issue 19; docs/product/automations.md): their kinds, the owner's words for
 * them, and what a card has before its owner changes anything. Pure, so the automations page uses it in the browser,
 * and the server's senders and the migration's back-fill agree with it.
 */
import { PUSH_BODY_MAX, PUSH_TITLE_MAX } from './push-message.ts'
import { rewardInSentence } from './reward-in-sentence.ts'

/** The automatic messages an owner words and turns on per card (`card_automations.kind`). */
export const AUTOMATION_KINDS = ['welcome', 'one_to_go', 'reward_earned', 'reward_waiting', 'we_miss_you'] as const
export type AutomationKind = (typeof AUTOMATION_KINDS)[number]

/** The two that wait a number of days. */
export const WAITING_KINDS = ['reward_waiting', 'we_miss_you'] as const satisfies readonly AutomationKind[]
export const isWaitingKind = (kind: AutomationKind): kind is (typeof WAITING_KINDS)[number] =>
  (WAITING_KINDS as readonly string[]).includes(kind)
export const AUTOMATION_DAYS_MIN = 1
export const AUTOMATION_DAYS_MAX = 365

/** `notifications.kind` of each automatic message ('reward' is today's reward push, now 'reward earned'). */
export const NOTIFICATION_KIND: Record<AutomationKind, string> = {
  welcome: 'welcome',
  one_to_go: 'one_to_go',
  reward_earned: 'reward',
  reward_waiting: 'reward_waiting',
  we_miss_you: 'we_miss_you',
}

/**
 * Automatic messages that count toward a holder's caps and wait out quiet hours. 'Reward earned' and the stamp push
 * do neither (the card working); 'one stamp to go' goes at once (the holder is at the counter) but counts.
 */
export const CAPPED_KINDS = ['welcome', 'one_to_go', 'reward_waiting', 'we_miss_you'] as const
export const QUIET_HOURS_KINDS = ['welcome', 'reward_waiting', 'we_miss_you'] as const

/** A welcome goes this long after the holder joins. */
export const WELCOME_DELAY_MS = 10 * 60 * 1000

/** The owner's names for each kind, and when it goes. */
export const AUTOMATION_WORDS: Record<AutomationKind, { name: string; when: string }> = {
  welcome: { name: 'Welcome', when: '10 minutes after a holder joins' },
  one_to_go: { name: 'One stamp to go', when: 'Instead of the stamp push when one stamp is left' },
  reward_earned: { name: 'Reward earned', when: 'When a stamp completes the card' },
  reward_waiting: { name: 'Reward waiting', when: 'When an earned reward is not redeemed after the days set' },
  we_miss_you: { name: 'We miss you', when: 'When a holder has not visited for the days set (once per absence)' },
}

/** The card's words a default message uses. */
export type AutomationCardWords = { businessName: string; title: string; reward: string; stampsRequired: number }

export type AutomationSetting = {
  kind: AutomationKind
  enabled: boolean
  title: string
  body: string
  /** Days to wait: reward waiting and we miss you; null for the others. */
  days: number | null
}

/** The first `max` characters (code points, as the database's length() counts them, so no emoji is split). */
const cut = (text: string, max: number) => Array.from(text).slice(0, max).join('')

export const DEFAULT_DAYS: Record<(typeof WAITING_KINDS)[number], number> = { reward_waiting: 7, we_miss_you: 30 }

/** What a card has for a kind its owner never saved: off, except 'reward earned' (today's reward push). */
export function defaultAutomation(kind: AutomationKind, card: AutomationCardWords): AutomationSetting {
  // Inside our sentences the owner's line-start capital goes ("get a free coffee"); 'Reward earned: …' keeps it.
  const reward = rewardInSentence(card.reward) || 'your reward'
  const rewardLine = card.reward.trim() || 'your reward'
  const title = cut(card.businessName.trim() || card.title.trim() || 'Stampwise', PUSH_TITLE_MAX)
  const bodies: Record<AutomationKind, string> = {
    welcome: `Welcome! Collect ${card.stampsRequired} stamps and get ${reward}.`,
    one_to_go: `One stamp to go: ${rewardLine} is yours on your next visit.`,
    // The words of today's reward push (app/services/push/stamp-push.server.ts), so nothing changes for holders.
    reward_earned: `Reward earned: ${rewardLine}`,
    reward_waiting: `Your reward is waiting: ${rewardLine}. Show your card on your next visit.`,
    we_miss_you: `We miss you! Come back soon and collect your next stamp.`,
  }
  return {
    kind,
    enabled: kind === 'reward_earned',
    title,
    body: cut(bodies[kind], PUSH_BODY_MAX),
    days: isWaitingKind(kind) ? DEFAULT_DAYS[kind] : null,
  }
}

/** Quiet hours and caps a card starts with (the columns' defaults in migration 0013). */
export const DEFAULT_QUIET_START = 21 * 60
export const DEFAULT_QUIET_END = 9 * 60
export const DAILY_CAP_MAX = 1
export const WEEKLY_CAP_MAX = 3

/** "21:00" for 1260 minutes after midnight. */
export const minutesToClock = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`

/** 1260 for "21:00"; null when the text is not a time of day. */
export function clockToMinutes(text: string): number | null {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text.trim())
  return match ? Number(match[1]) * 60 + Number(match[2]) : null
}

/**
 * Whether a local time of day (minutes after midnight) falls in quiet hours from `start` to `end` (which may pass
 * midnight: 21:00–09:00). Start included, end not; start = end means no quiet hours.
 */
export function inQuietHours(minute: number, start: number, end: number): boolean {
  if (start === end) return false
  return start < end ? minute >= start && minute < end : minute >= start || minute < end
}

/**
 * The per-holder messages (notifications.kind) the history counts per kind and day, in the page's order, with their
 * names: the stamp push and every automatic message ('reward' is "reward earned").
 */
export const AUTOMATIC_NOTIFICATION_KINDS = [
  'stamp',
  'one_to_go',
  'reward',
  'welcome',
  'reward_waiting',
  'we_miss_you',
] as const
export type AutomaticNotificationKind = (typeof AUTOMATIC_NOTIFICATION_KINDS)[number]
export const AUTOMATIC_NOTIFICATION_NAMES: Record<AutomaticNotificationKind, string> = {
  stamp: 'Stamp push',
  one_to_go: AUTOMATION_WORDS.one_to_go.name,
  reward: AUTOMATION_WORDS.reward_earned.name,
  welcome: AUTOMATION_WORDS.welcome.name,
  reward_waiting: AUTOMATION_WORDS.reward_waiting.name,
  we_miss_you: AUTOMATION_WORDS.we_miss_you.name,
}
