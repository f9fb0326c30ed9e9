const FORMAT = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })

/** A notice's time, in UTC so the server's HTML and the browser's render agree. */
export function NoticeTime({ iso }: { iso: string }) {
  return <time dateTime={iso}>{FORMAT.format(new Date(iso))} UTC</time>
}
