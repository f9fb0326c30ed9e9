import { type HolderSort } from '#app/utils/holders-query.ts'
import { isUuid } from '#app/utils/uuid.ts'
import { type HolderKey, type HolderPosition } from '#models/holders.server.ts'

/**
 * The holders list's `after` / `before` cursors: a row's place in one order (the sort, its value, its id) as an
 * opaque base64url string. A cursor is checked in full before it reaches SQL, so a typed or cut address is a 400
 * with a message, never a database error; a cursor of the other order is refused too (it would skip rows).
 */
export const BAD_CURSOR_MESSAGE = 'This page link is not valid any more. Start again from the first page.'

const LAST_VISIT_VALUE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/
const STAMPS_VALUE = /^\d{1,6}$/

export function encodeHolderCursor(sort: HolderSort, key: HolderKey): string {
  return Buffer.from(`${sort}|${key.value}|${key.id}`, 'utf8').toString('base64url')
}

function validValue(sort: HolderSort, value: string): boolean {
  if (sort === 'stamps') return STAMPS_VALUE.test(value)
  if (!LAST_VISIT_VALUE.test(value)) return false
  // A real instant: month 13 or 31 February read back differently.
  const date = new Date(`${value.slice(0, 23)}Z`)
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 23) === value.slice(0, 23)
}

function decodeHolderCursor(sort: HolderSort, cursor: string): HolderKey | null {
  if (cursor.length > 200 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null
  const [cursorSort, value, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|')
  if (rest.length || cursorSort !== sort || value === undefined || !isUuid(id)) return null
  if (!validValue(sort, value)) return null
  return { value, id: id.toLowerCase() }
}

/** The page asked for: `after` wins over `before`; null when a cursor given is not one. */
export function requestedHolderPosition(searchParams: URLSearchParams, sort: HolderSort): HolderPosition | null {
  const after = searchParams.get('after')
  const before = searchParams.get('before')
  if (after !== null) {
    const key = decodeHolderCursor(sort, after)
    return key ? { after: key } : null
  }
  if (before !== null) {
    const key = decodeHolderCursor(sort, before)
    return key ? { before: key } : null
  }
  return {}
}
