import { createCookie } from '@remix-run/node'
import { getEnv } from '#app/server/env.server.ts'
import { getSession } from '#app/services/auth/session.server.ts'
import { STAMP_MESSAGES } from '#app/utils/stamping.ts'
import { actorLocations } from '#models/locations.server.ts'

/**
 * Where a stamp, undo or redemption happens (docs/product/staff-locations-rules.md). The device
 * remembers the last location used in a cookie, so a counter's tablet keeps its shop; the cookie only preselects
 * the choice: every request is checked against the actor's own locations, so a stale or crafted value is refused.
 */
export type ScanActor = { ownerId: string; staffId?: string }

let locationCookie: ReturnType<typeof createCookie> | undefined

function getLocationCookie() {
  locationCookie ??= createCookie('stampwise_location', {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: getEnv().APP_URL.startsWith('https://'),
    // A year: the device stays in its shop.
    maxAge: 365 * 24 * 60 * 60,
  })
  return locationCookie
}

/** The remembered location id, unchecked (a preselection only). */
export async function rememberedLocationId(request: Request): Promise<string | null> {
  const value: unknown = await getLocationCookie()
    .parse(request.headers.get('Cookie'))
    .catch(() => null)
  return typeof value === 'string' && value.length <= 64 ? value : null
}

export function rememberLocation(locationId: string): Promise<string> {
  return getLocationCookie().serialize(locationId)
}

/** What the scan page offers: the actor's locations and the one to preselect (null: none remembered, or not theirs). */
export async function locationChoice(request: Request, actor: ScanActor) {
  const locations = await actorLocations(actor)
  const remembered = await rememberedLocationId(request)
  const current =
    locations.find((location) => location.id === remembered) ?? (locations.length === 1 ? locations[0]! : null)
  return { locations, current }
}

export type ResolvedLocation = { ok: true; locationId: string | null } | { ok: false; message: string }

/**
 * The location a request names, checked against the signed-in actor's (carried by the session lookup, so a stamp
 * pays no round trip for it): none when the business has no locations; its only one when it has one and none was
 * named; else the one named, which must be theirs.
 */
export async function resolveLocation(request: Request, submitted: string | undefined): Promise<ResolvedLocation> {
  const locationIds = (await getSession(request))?.locationIds ?? []
  if (submitted) {
    return locationIds.includes(submitted)
      ? { ok: true, locationId: submitted }
      : { ok: false, message: STAMP_MESSAGES.notYourLocation }
  }
  if (locationIds.length === 0) return { ok: true, locationId: null }
  if (locationIds.length === 1) return { ok: true, locationId: locationIds[0]! }
  return { ok: false, message: STAMP_MESSAGES.location }
}
