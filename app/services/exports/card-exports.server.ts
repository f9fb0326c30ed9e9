import { rewardsEarned, schemeOf } from '#app/services/cards/loyalty-scheme.ts'
import { requireOwnedCard } from '#app/services/cards/owned-card.server.ts'
import { isoAtOffset, localDay } from '#app/utils/local-time.ts'
import {
  EXPORT_PAGE_SIZE,
  holdersExportPage,
  stampsExportPage,
  type HolderExportRow,
  type StampExportRow,
} from '#models/exports.server.ts'
import { getOwnerTimeZone } from '#models/user.server.ts'
import { csvPagesStream, type CsvFile, type CsvPages, type CsvReading } from './csv-stream.server.ts'

/*
 * The card's two CSV downloads (docs/product/insights-and-exports.md, "Exports"): /account/{cardId}/export/holders.csv
 * and stamps.csv. Owner-scoped like every card page (the route sends a guest to log in; another owner's card or a
 * malformed id: 404); the routes send the file with csvDownload (app/server/download.server.ts). Yes/no columns are
 * written 'yes' or 'no' in both files (readable where a 1 or 0 is not; a spreadsheet counts them with COUNTIF all the
 * same).
 */

const HOLDER_COLUMNS = [
  'short_code',
  'joined',
  'last_visit',
  'stamps',
  'stamps_required',
  'rewards_earned',
  'rewards_redeemed',
  'web_push',
  'apple_wallet',
  'google_wallet',
  // What the holder gave (issue 34), after the columns existing spreadsheets read by position.
  'name',
  'email',
  'email_confirmed',
  'phone',
  'birthday',
] as const

/**
 * A birthday without a year: MM-DD (ISO 8601's --MM-DD would start with '-', which the CSV escapes as a formula).
 */
const birthdayCell = (day: number | null, month: number | null) =>
  day === null || month === null ? null : `${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`

const STAMP_COLUMNS = ['time', 'short_code', 'action', 'count', 'undone'] as const

const holderCells = (row: HolderExportRow) => [
  row.short_code,
  isoAtOffset(row.joined_s, row.joined_offset_s),
  isoAtOffset(row.last_visit_s, row.last_visit_offset_s),
  row.stamps,
  row.stamps_required,
  // The reward waiting to be redeemed counts as earned.
  rewardsEarned(schemeOf({ stampsRequired: row.stamps_required }), row.stamps, row.rewards_redeemed),
  row.rewards_redeemed,
  row.web_push,
  row.apple_wallet,
  row.google_wallet,
  row.name,
  row.email,
  row.email === null ? null : row.email_confirmed,
  row.phone,
  birthdayCell(row.birth_day, row.birth_month),
]

const stampCells = (row: StampExportRow) => [
  isoAtOffset(row.at_s, row.at_offset_s),
  row.short_code,
  row.kind,
  row.count,
  // Only a stamp can be undone; an undo or a redemption leaves the cell empty.
  row.kind === 'stamp' ? row.undone : null,
]

/** The signed-in owner, the card asked for (another owner's or a malformed id: 404), and how the client reads. */
type CardExport = { userId: string; cardId: string | undefined; reading: CsvReading }

async function cardCsv<Row>(
  { userId, cardId, reading }: CardExport,
  kind: 'holders' | 'stamps',
  pages: (owned: { cardId: string; userId: string }) => Pick<CsvPages<Row>, 'header' | 'nextPage' | 'toCells'> & {
    first: () => Promise<Row[]>
  },
): Promise<CsvFile> {
  const card = await requireOwnedCard(userId, cardId)
  const { header, nextPage, toCells, first } = pages({ cardId: card.id, userId })
  const [timeZone, firstPage] = await Promise.all([getOwnerTimeZone(userId), first()])
  const csv = csvPagesStream({ header, firstPage, nextPage, toCells, pageSize: EXPORT_PAGE_SIZE, ...reading })
  return { filename: `${card.slug}-${kind}-${localDay(new Date(), timeZone)}.csv`, csv }
}

export function holdersCsv(asked: CardExport) {
  return cardCsv<HolderExportRow>(asked, 'holders', (owned) => ({
    header: HOLDER_COLUMNS,
    first: () => holdersExportPage(owned, null),
    nextPage: (last) => holdersExportPage(owned, { createdAt: last.cursor_at, id: last.id }),
    toCells: holderCells,
  }))
}

export function stampsCsv(asked: CardExport) {
  return cardCsv<StampExportRow>(asked, 'stamps', (owned) => ({
    header: STAMP_COLUMNS,
    first: () => stampsExportPage(owned, 0),
    nextPage: (last) => stampsExportPage(owned, last.id),
    toCells: stampCells,
  }))
}
