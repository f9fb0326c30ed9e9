import { z } from 'zod'

/**
 * The forms of /account/locations (docs/product/staff-locations-rules.md; migration 0014's limits),
 * one schema each, shared by the page (conform in the browser) and its action.
 */
export const LOCATION_NAME_MAX = 60
export const LOCATION_ADDRESS_MAX = 200
/** The most locations a business keeps (not removed): far more than shops, few enough for one page. */
export const LOCATIONS_MAX = 50
/** Apple Wallet shows a pass on the lock screen near at most 10 places (PassKit's `locations`). */
export const APPLE_PASS_LOCATIONS_MAX = 10

export const LOCATION_MESSAGES = {
  name: `Enter the location’s name (up to ${LOCATION_NAME_MAX} characters)`,
  nameLong: `The name must be ${LOCATION_NAME_MAX} characters or fewer`,
  address: `Enter the address (up to ${LOCATION_ADDRESS_MAX} characters)`,
  addressLong: `The address must be ${LOCATION_ADDRESS_MAX} characters or fewer`,
  controls: 'Use letters, digits and punctuation only (no tabs or line breaks)',
  latitude: 'Enter a latitude from -90 to 90, such as 38.7223 (or leave it empty)',
  longitude: 'Enter a longitude from -180 to 180, such as -9.1393 (or leave it empty)',
  latitudeToo: 'Enter the latitude too, or leave both empty',
  longitudeToo: 'Enter the longitude too, or leave both empty',
  staff: 'Choose staff from the list',
  limit: `You have ${LOCATIONS_MAX} locations, the most a business can have. Remove one to add another.`,
  notFound: 'Location not found',
} as const
const M = LOCATION_MESSAGES

export const ADD_LOCATION_INTENT = 'add'
export const EDIT_LOCATION_INTENT = 'edit'
export const REMOVE_LOCATION_INTENT = 'remove'
export const LOCATION_INTENTS = [ADD_LOCATION_INTENT, EDIT_LOCATION_INTENT, REMOVE_LOCATION_INTENT] as const
export type LocationIntent = (typeof LOCATION_INTENTS)[number]
export const isLocationIntent = (value: unknown): value is LocationIntent =>
  (LOCATION_INTENTS as readonly unknown[]).includes(value)

/**
 * A coordinate as people type or paste it: '38.7223', '38,7223' (a decimal comma), '−9.1393' (a typographic minus),
 * '38.7223°'. Null when it is no decimal number. Exponents, hex and the like are refused: no one types those.
 */
export function parseCoordinate(text: string): number | null {
  const normal = text.trim().replace(/^[−–]/, '-').replace(/°$/, '').replace(',', '.')
  if (!/^[+-]?(\d{1,3}(\.\d{0,15})?|\.\d{1,15})$/.test(normal)) return null
  const value = Number(normal)
  return Number.isFinite(value) ? value : null
}

// eslint-disable-next-line no-control-regex -- what it refuses: control characters
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

const text = (required: string, tooLong: string, max: number) =>
  z
    .string({ error: required })
    .trim()
    .min(1, { error: required })
    .max(max, { error: tooLong })
    .refine((value) => !CONTROL.test(value), { error: M.controls })

const coordinate = (limit: number, error: string) =>
  z
    .string({ error })
    .transform((value, context) => {
      const parsed = parseCoordinate(value)
      if (parsed === null || Math.abs(parsed) > limit) {
        context.addIssue({ code: 'custom', message: error })
        return z.NEVER
      }
      return parsed
    })
    .optional()

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * A location as the add and edit forms send it: name, address, latitude and longitude (both or neither), and the
 * staff members who work there (checkboxes; the action checks they are the owner's).
 */
export const LocationSchema = z
  .object({
    name: text(M.name, M.nameLong, LOCATION_NAME_MAX),
    address: text(M.address, M.addressLong, LOCATION_ADDRESS_MAX),
    latitude: coordinate(90, M.latitude),
    longitude: coordinate(180, M.longitude),
    staffIds: z
      .array(z.string({ error: M.staff }).regex(UUID, { error: M.staff }), { error: M.staff })
      .max(1000, { error: M.staff })
      .optional(),
  })
  .superRefine((value, context) => {
    if (value.latitude !== undefined && value.longitude === undefined)
      context.addIssue({ code: 'custom', path: ['longitude'], message: M.longitudeToo })
    if (value.longitude !== undefined && value.latitude === undefined)
      context.addIssue({ code: 'custom', path: ['latitude'], message: M.latitudeToo })
  })
export type LocationInput = z.output<typeof LocationSchema>

/** Edit and remove name the location (the action answers 404 for one that is not the owner's). */
export const LocationIdSchema = z.object({ locationId: z.string({ error: M.notFound }).regex(UUID, M.notFound) })
