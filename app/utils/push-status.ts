/**
 * A sent message's state in the owner's words, from its stored status and its delivery counts. The stored status
 * says only whether the sending is over ('done'), not how it went: a message no device received is 'Failed' to
 * the owner, not "done". Pure, so the confirm page's live progress uses it in the browser too.
 */
export function pushStatusText({
  status,
  sent,
  failed,
  pending,
}: {
  status: string
  sent: number
  failed: number
  pending: number
}) {
  switch (status) {
    case 'draft':
      return 'Draft'
    case 'queued':
      return 'Waiting to send'
    case 'sending':
      return 'Sending'
    case 'failed':
      return 'Failed'
    // A scheduled broadcast (issue 19): waiting for its time, cancelled by the owner, or not sent when due.
    case 'scheduled':
      return 'Scheduled'
    case 'cancelled':
      return 'Cancelled'
    case 'skipped':
      return 'Not sent'
    case 'done':
      if (sent === 0 && failed > 0) return 'Failed'
      if (failed > 0 || pending > 0) return 'Partly delivered'
      return sent > 0 ? 'Delivered' : 'No devices to reach'
    default:
      return 'Sending'
  }
}
