import { csvPagesStream, type CsvFile, type CsvReading } from '#app/services/exports/csv-stream.server.ts'
import { ActivityQuerySchema } from '#app/utils/activity-query.ts'
import { isoAtOffset, localDay } from '#app/utils/local-time.ts'
import { activityPage, type ActivityRow } from '#models/activity.server.ts'
import { getOwnerTimeZone } from '#models/user.server.ts'
import { activityChoices, parseActivityFilter } from './activity-filter.server.ts'
import { locationLabel, personLabel } from './activity-labels.ts'

/*
 * /account/activity.csv: the activity with the page's filters, as docs/product/insights-and-exports.md's exports write
 * a CSV (RFC 4180, a BOM, ISO 8601 times with the business's offset, the formula prefix on text, numbers as numbers),
 * newest first like the page, streamed in keyset pages of ACTIVITY_EXPORT_PAGE_SIZE with nothing held open between
 * them. Newest first also means that events made while the file streams land above its start and are not half in it.
 * The route sends the file with csvDownload (app/server/download.server.ts) and a refused filter as text.
 */

/**
 * Smaller than the card exports' 5,000: an activity row carries the card, person and place (about twenty columns),
 * and pages of 5,000 grew the server's memory by 50–140 MB on a 300,000-row export; pages of 1,000 keep it flat
 * (under 1 MB) in the same time (`npm run bench:activity`).
 */
export const ACTIVITY_EXPORT_PAGE_SIZE = 1_000

const COLUMNS = [
  'time',
  'card',
  'short_code',
  'action',
  'count',
  'person',
  'location',
  'rule_overridden',
  'undone',
] as const

const cells = (ownerId: string) => (row: ActivityRow) => [
  isoAtOffset(row.at_s, row.at_offset_s),
  row.card_title,
  row.short_code,
  row.kind,
  row.count,
  personLabel(row, ownerId, 'Owner'),
  locationLabel(row),
  // Only a stamp can override a rule or be undone; an undo or a redemption leaves the cells empty.
  row.kind === 'stamp' ? row.overridden : null,
  row.kind === 'stamp' ? row.undone : null,
]

/** The file, or the filter's refusal: values the page's form cannot send (another owner's card, …), one per line. */
export type ActivityCsv = ({ ok: true } & CsvFile) | { ok: false; status: 400; message: string }

export async function activityCsv(ownerId: string, query: URLSearchParams, reading: CsvReading): Promise<ActivityCsv> {
  const choices = await activityChoices(ownerId)
  const submission = parseActivityFilter(query, ActivityQuerySchema, choices)
  if (submission.status !== 'success') {
    const messages = Object.values(submission.error ?? {}).flatMap((errors) => errors ?? [])
    return { ok: false, status: 400, message: messages.join('\n') }
  }
  const { card, ...who } = submission.value
  const filter = { cardId: card, ...who }
  const [timeZone, firstPage] = await Promise.all([
    getOwnerTimeZone(ownerId),
    activityPage(ownerId, filter, null, ACTIVITY_EXPORT_PAGE_SIZE),
  ])
  const csv = csvPagesStream({
    header: COLUMNS,
    firstPage,
    nextPage: (last) => activityPage(ownerId, filter, { at: last.cursor_at, id: last.id }, ACTIVITY_EXPORT_PAGE_SIZE),
    toCells: cells(ownerId),
    pageSize: ACTIVITY_EXPORT_PAGE_SIZE,
    ...reading,
  })
  return { ok: true, filename: `activity-${localDay(new Date(), timeZone)}.csv`, csv }
}
