import { type SubmissionResult } from '@conform-to/react'
import { data } from '@remix-run/node'

/** What every page form's action answers when it does not go on: conform's result, beside what the page adds. */
export type FormReplyPayload = { result?: SubmissionResult<string[]> | null }

/**
 * The one answer of a page form that stops (docs/decisions/055-one-way-to-fail.md): `{ result, …extra }` — the
 * fields' messages and values (but `hideFields`), and what the page shows beside the form — with 400, or the status
 * that says more (403 a limit, 409 a conflict with what is stored, 429 a rate limit with its headers). The same
 * messages reach the page with and without JavaScript.
 */
export function formReply<Payload extends FormReplyPayload>(payload: Payload, init: number | ResponseInit = 400) {
  return data(payload, typeof init === 'number' ? { status: init } : init)
}
