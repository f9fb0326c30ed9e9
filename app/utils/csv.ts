/**
 * CSV cells and rows as docs/product/insights-and-exports.md ("Exports") writes them: RFC 4180 (CRLF line ends; a field
 * with a comma, a quote, CR or LF is quoted, its quotes doubled), numbers as numbers, and a text cell that a
 * spreadsheet would read as a formula (starting with `=`, `+`, `-` or `@`, or with a tab or carriage return, which some
 * spreadsheets skip before reading the formula; OWASP's CSV injection list) prefixed with `'`, so a value a holder or
 * an owner typed never runs in the owner's spreadsheet. Pure: the exports stream these a page at a time.
 */

export type CsvValue = string | number | boolean | null | undefined

/**
 * The byte-order mark the file starts with: without it Excel reads a CSV in the machine's legacy code page and a
 * non-ASCII letter comes out garbled. Other readers (LibreOffice, Numbers, Python's utf-8-sig, pandas) skip it.
 */
export const CSV_BOM = '\uFEFF'

const NEEDS_QUOTES = /[",\r\n]/
const FORMULA_START = /^[=+\-@\t\r]/

/** A text cell: formula prefix first, then quoting (the prefix must sit inside the quotes). */
export function csvText(value: string): string {
  const text = FORMULA_START.test(value) ? `'${value}` : value
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/**
 * One cell. Numbers are written as they are (a negative number stays a number, not text to escape); a boolean is
 * 'yes' or 'no'; null, undefined and a number that is not finite are an empty cell.
 */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : ''
  if (typeof value === 'boolean') return value ? 'yes' : 'no'
  return csvText(value)
}

/** One record with its CRLF line end. */
export function csvRow(values: readonly CsvValue[]): string {
  let line = ''
  for (let index = 0; index < values.length; index++) line += (index ? ',' : '') + csvCell(values[index])
  return `${line}\r\n`
}
