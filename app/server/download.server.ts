/**
 * The one answer of a CSV download (the card's exports, the activity): a file to save, `no-store` because it is the
 * owner's data as of now. The body streams while the service reads it (app/services/exports/csv-stream.server.ts).
 */
export function csvDownload(filename: string, body: ReadableStream<Uint8Array>): Response {
  return new Response(body, {
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${filename}"`,
      'Cache-Control': 'no-store',
    },
  })
}
