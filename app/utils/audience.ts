import { z } from 'zod'

/**
 * Who a broadcast goes to (docs/product/automations.md, "Audiences"): all the card's holders, or one of the holders
 * page's filters (inactive 30+ days, one stamp from the reward, reward waiting), with the same definitions: the SQL of
 * each is models/holder-audience.server.ts, shared with the holders list. Stored on the message
 * (notifications.audience, migration 0013). Pure: the confirm page's select uses it in the browser too.
 */
export const AUDIENCE_OPTIONS = [
  ['all', 'All holders'],
  ['inactive', 'No visit for 30+ days'],
  ['one_to_go', 'One stamp from the reward'],
  ['reward_waiting', 'Reward waiting'],
] as const

export type Audience = (typeof AUDIENCE_OPTIONS)[number][0]
export const AUDIENCES = AUDIENCE_OPTIONS.map(([value]) => value) as unknown as [Audience, ...Audience[]]

export const AUDIENCE_MESSAGE = `Choose who receives the message: ${AUDIENCES.join(', ')}`

export const AudienceSchema = z.enum(AUDIENCES, { error: AUDIENCE_MESSAGE })

/** The audience in the owner's words ('Reward waiting'). */
export function audienceText(audience: string): string {
  return AUDIENCE_OPTIONS.find(([value]) => value === audience)?.[1] ?? 'All holders'
}

/** The audience a query or form names: absent is `fallback`, anything not in the list is null (a 400). */
export function parseAudience(value: FormDataEntryValue | null | undefined, fallback: Audience): Audience | null {
  if (value === null || value === undefined || value === '') return fallback
  const parsed = AudienceSchema.safeParse(value)
  return parsed.success ? parsed.data : null
}
