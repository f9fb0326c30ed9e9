/**
 * A strict RFC 4180 reader for the exports' tests: records end with CRLF (the last one too, as the exports write
 * it), a quoted field may hold commas, CR, LF and doubled quotes, and anything else (a bare LF, a quote inside an
 * unquoted field, text after a closing quote, an unclosed quote) throws, so a sloppy file cannot pass. A leading
 * byte-order mark is returned apart.
 */
export function parseCsv(text: string): { bom: boolean; records: string[][] } {
  const bom = text.startsWith('\uFEFF')
  const body = bom ? text.slice(1) : text
  const records: string[][] = []
  let record: string[] = []
  let index = 0
  const fail = (why: string): never => {
    throw new Error(`CSV: ${why} at character ${index} (record ${records.length + 1})`)
  }
  if (body.length > 0 && !body.endsWith('\r\n')) fail('the last record does not end with CRLF')
  while (index < body.length) {
    let field = ''
    if (body[index] === '"') {
      index++
      for (;;) {
        const quote = body.indexOf('"', index)
        if (quote === -1) fail('a quoted field is not closed')
        field += body.slice(index, quote)
        index = quote + 1
        if (body[index] === '"') {
          field += '"'
          index++
        } else break
      }
    } else {
      const end = body.slice(index).search(/[,\r\n"]/)
      const stop = end === -1 ? body.length : index + end
      field = body.slice(index, stop)
      index = stop
      if (body[index] === '"') fail('a quote inside an unquoted field')
    }
    record.push(field)
    if (body[index] === ',') {
      index++
    } else if (body.startsWith('\r\n', index)) {
      index += 2
      records.push(record)
      record = []
    } else {
      fail(`${JSON.stringify(body[index] ?? 'the end')} after a field`)
    }
  }
  return { bom, records }
}

/** The records as objects keyed by the header row's names; every record must have the header's width. */
export function csvObjects(text: string): { bom: boolean; header: string[]; rows: Record<string, string>[] } {
  const { bom, records } = parseCsv(text)
  const [header = [], ...rest] = records
  const rows = rest.map((record, index) => {
    if (record.length !== header.length) throw new Error(`CSV: record ${index + 2} has ${record.length} fields`)
    return Object.fromEntries(header.map((name, column) => [name, record[column]!]))
  })
  return { bom, header, rows }
}
