import { CSV_BOM, csvRow, type CsvValue } from '#app/utils/csv.ts'

/** How the client takes the file (the route passes them on): `signal` and `clientDrained`, as below. */
export type CsvReading = { signal: AbortSignal; clientDrained?: () => Promise<void> }

/** A file for the route to send (csvDownload, app/server/download.server.ts): its name and its streamed rows. */
export type CsvFile = { filename: string; csv: ReadableStream<Uint8Array> }

/**
 * A CSV download read from the database a page at a time while the client takes it
 * (docs/product/insights-and-exports.md, "Exports": memory flat). The body is pull-based with no read-ahead: the next
 * page is queried only when the writer asks for more and the client's socket has taken what was written
 * (`clientDrained`: Remix writes a body without waiting for drain, so without it a slow client would let the whole file
 * pile up in the process). A client that goes away (`signal`) ends the reading. Each page is its own query: nothing is
 * held open between them.
 */
export type CsvPages<Row> = CsvReading & {
  header: readonly string[]
  /** The first page, read before the answer starts, so a failure there is an ordinary error page, not a cut file. */
  firstPage: Row[]
  /** The page after the last row of the previous one. */
  nextPage: (last: Row) => Promise<Row[]>
  pageSize: number
  toCells: (row: Row) => readonly CsvValue[]
}

export function csvPagesStream<Row>({
  header,
  firstPage,
  nextPage,
  pageSize,
  toCells,
  signal,
  clientDrained,
}: CsvPages<Row>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  let prefix = CSV_BOM + csvRow(header)
  let page: Row[] = firstPage
  let started = false
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (started) {
          const last = page.at(-1)
          if (page.length < pageSize || last === undefined || signal.aborted) return controller.close()
          await clientDrained?.()
          if (signal.aborted) return controller.close()
          page = await nextPage(last)
          if (page.length === 0) return controller.close()
        }
        started = true
        let text = prefix
        prefix = ''
        for (const row of page) text += csvRow(toCells(row))
        controller.enqueue(encoder.encode(text))
      },
    },
    // No read-ahead: pull runs only when the writer is waiting for a chunk.
    { highWaterMark: 0 },
  )
}
