import { describe, expect, test } from 'vitest'
import { parseCsv } from '#tests/support/csv-parse.ts'
import { CSV_BOM, csvCell, csvRow, csvText } from './csv.ts'
import { isoAtOffset, isoWithOffset, offsetMinutes } from './local-time.ts'

describe('CSV cells (RFC 4180, formula cells escaped)', () => {
  test('plain text is written as it is; a comma, quote, CR or LF quotes the field and doubles its quotes', () => {
    expect(csvText('ABCD2345')).toBe('ABCD2345')
    expect(csvText('Corner Coffee')).toBe('Corner Coffee')
    expect(csvText('a,b')).toBe('"a,b"')
    expect(csvText('say "hi"')).toBe('"say ""hi"""')
    expect(csvText('two\r\nlines')).toBe('"two\r\nlines"')
    expect(csvText('cr\ronly')).toBe('"cr\ronly"')
    expect(csvText('lf\nonly')).toBe('"lf\nonly"')
    expect(csvText('Café ☕')).toBe('Café ☕')
  })

  test('text starting with =, +, -, @, a tab or a carriage return gets a leading quote mark, inside the quotes when it needs them', () => {
    expect(csvText('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`)
    expect(csvText('+1')).toBe("'+1")
    expect(csvText('-2+3')).toBe("'-2+3")
    expect(csvText('@SUM(A1)')).toBe("'@SUM(A1)")
    expect(csvText('=1,2')).toBe(`"'=1,2"`)
    // A leading tab or carriage return too: some spreadsheets skip it and read the formula behind it.
    expect(csvText('\t=1+2')).toBe("'\t=1+2")
    expect(csvText('\r=1+2')).toBe(`"'\r=1+2"`)
    expect(csvText('\tplain')).toBe("'\tplain")
    // Only the first character counts.
    expect(csvText('a=b')).toBe('a=b')
    expect(csvText(' =1')).toBe(' =1')
  })

  test('numbers are numbers (a negative one too), booleans yes/no, nothing is an empty cell', () => {
    expect(csvCell(0)).toBe('0')
    expect(csvCell(12)).toBe('12')
    expect(csvCell(-3)).toBe('-3')
    expect(csvCell(2.5)).toBe('2.5')
    expect(csvCell(Number.NaN)).toBe('')
    expect(csvCell(Number.POSITIVE_INFINITY)).toBe('')
    expect(csvCell(true)).toBe('yes')
    expect(csvCell(false)).toBe('no')
    expect(csvCell(null)).toBe('')
    expect(csvCell(undefined)).toBe('')
    expect(csvCell('')).toBe('')
    expect(csvCell('-')).toBe("'-")
  })

  test('a row ends with CRLF and reads back to the same values through a strict parser', () => {
    const values = ['=cmd|"/c calc"!A1', 'a,b', 'line\r\nbreak', '"', '', null, -4, 7, true]
    const text = CSV_BOM + csvRow(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']) + csvRow(values)
    expect(csvRow(['x', 1])).toBe('x,1\r\n')
    const { bom, records } = parseCsv(text)
    expect(bom).toBe(true)
    expect(records).toEqual([
      ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'],
      [`'=cmd|"/c calc"!A1`, 'a,b', 'line\r\nbreak', '"', '', '', '-4', '7', 'yes'],
    ])
  })

  test('the strict parser refuses what RFC 4180 does not allow', () => {
    expect(() => parseCsv('a,b\n')).toThrow()
    expect(() => parseCsv('a,b')).toThrow()
    expect(() => parseCsv('a"b\r\n')).toThrow()
    expect(() => parseCsv('"a"b\r\n')).toThrow()
    expect(() => parseCsv('"a\r\n')).toThrow()
  })
})

describe('export times', () => {
  test('isoAtOffset, from SQL’s epoch seconds and offset, equals isoWithOffset', () => {
    for (const [iso, timeZone] of [
      ['2026-01-15T10:30:45.678Z', 'Pacific/Auckland'],
      ['2026-07-15T10:30:45Z', 'Pacific/Auckland'],
      ['2026-03-01T00:00:00Z', 'Pacific/Honolulu'],
      ['2026-03-01T00:00:00Z', 'Asia/Kolkata'],
      ['2026-03-01T00:00:00Z', 'UTC'],
    ] as const) {
      const date = new Date(iso)
      const epoch = Math.floor(date.getTime() / 1000)
      const local = isoWithOffset(date, timeZone)
      const offset = offsetMinutes(date, timeZone) * 60
      expect(isoAtOffset(epoch, offset)).toBe(local)
    }
    expect(isoAtOffset(Date.parse('2026-01-15T10:30:45Z') / 1000, 13 * 3600)).toBe('2026-01-15T23:30:45+13:00')
    expect(isoAtOffset(Date.parse('2026-01-15T10:30:45Z') / 1000, -10 * 3600)).toBe('2026-01-15T00:30:45-10:00')
  })
})
