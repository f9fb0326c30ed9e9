/// <reference types="@maxim_mazurok/gapi.client.walletobjects-v1" />
import { checkBody, isObject } from './google-wallet-schema.ts'

/**
 * The Google Wallet fake's loyalty classes and objects (google-wallet-fake.ts holds the HTTP side): insert, get,
 * update (PUT), patch and addMessage on a request whose token, path and body shape have been checked, with Google's
 * rules on required fields, ids, classes and review status, its limit of 3 notifications per object in 24 hours (a
 * notifying message past it is refused with 403 quotaExceeded) and its 10 messages per object.
 */

type LoyaltyClass = gapi.client.walletobjects.LoyaltyClass
/** Stored as Google stores them: the JSON of a LoyaltyClass or LoyaltyObject. */
type Resource = Record<string, unknown>
export type Route = { type: 'LoyaltyClass' | 'LoyaltyObject'; id?: string; addMessage: boolean }
/** An answer to give; `violation` when the real API would refuse it and the app must never send it. */
export type Answer = { status: number; body: unknown; violation?: string; headers?: Record<string, string> }

const DAY_MS = 24 * 60 * 60 * 1000
const NOTIFICATIONS_PER_DAY = 3
/** An object holds at most this many messages (Google's limit; messages are never removed by Google). */
export const MESSAGES_PER_OBJECT = 10
const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ALREADY_EXISTS',
  412: 'FAILED_PRECONDITION',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  501: 'NOT_IMPLEMENTED',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
}

export function createWalletStore({ issuerId, now }: { issuerId: string; now: () => number }) {
  const classes = new Map<string, Resource>()
  const objects = new Map<string, Resource>()
  const notified = new Map<string, number[]>()
  const throttled = new Map<string, number>()
  const ids = issuerIds(issuerId)

  /** Carries out a checked request (the schema and ids of its path are Google-valid). */
  function perform(method: string, route: Route, body: unknown): Answer {
    const given = method === 'GET' ? {} : checkBody(body, route.addMessage ? 'AddMessageRequest' : route.type).value
    const store = route.type === 'LoyaltyClass' ? classes : objects
    const kind = route.type === 'LoyaltyClass' ? 'walletobjects#loyaltyClass' : 'walletobjects#loyaltyObject'
    const answerWith = (resource: Resource): Answer => ({ status: 200, body: present(resource) })

    if (route.id === undefined) {
      const id = given.id
      if (typeof id !== 'string') return refusal(400, 'Resource id is required.')
      if (!ids.valid(id)) return refusal(400, ids.invalid(id))
      const missing = checkRules(route.type, given, 'insert')
      if (missing) return missing
      if (store.has(id)) return { status: 409, body: googleError(409, 'Resource already exists') }
      const resource: Resource = { ...withoutNulls(given), kind }
      // Ephemeral in Google's API: it asks for a notification of this change, it is not kept.
      delete resource.notifyPreference
      store.set(id, resource)
      return answerWith(resource)
    }

    const id = route.id
    const stored = store.get(id)
    if (!stored) {
      const noun = route.type === 'LoyaltyClass' ? 'class' : 'object'
      return { status: 404, body: googleError(404, `No ${noun} found for id ${id}`) }
    }
    if (method === 'GET') return answerWith(stored)

    if (route.addMessage) {
      const message = isObject(given.message) ? given.message : undefined
      if (!message || typeof message.header !== 'string' || typeof message.body !== 'string') {
        return refusal(400, 'A message needs a header and a body.')
      }
      const messages = (stored.messages ?? []) as unknown[]
      if (messages.length >= MESSAGES_PER_OBJECT) return tooManyMessages(id)
      // Past the holder's notifications of the day Google refuses a notifying message (403 quotaExceeded), and adds
      // nothing: the sender must try again without notifying.
      if (message.messageType === 'TEXT_AND_NOTIFY' && !notifyHolder(id)) return quotaExceeded(id, stored)
      stored.messages = [...messages, { ...message, kind: 'walletobjects#walletObjectMessage' }]
      return { status: 200, body: { resource: present(stored) } }
    }

    if (given.id !== undefined && given.id !== id)
      return refusal(400, `The body's id ${String(given.id)} is not ${id}.`)
    // PUT replaces the resource; PATCH replaces the top-level fields it names (a null clears one).
    const next: Resource =
      method === 'PUT' ? { ...withoutNulls(given), id, kind } : withoutNulls({ ...stored, ...given, id, kind })
    const missing = checkRules(route.type, next, method === 'PUT' ? 'update' : 'patch', stored)
    if (missing) return missing
    if (Array.isArray(next.messages) && next.messages.length > MESSAGES_PER_OBJECT) return tooManyMessages(id)
    const notify = next.notifyPreference === 'NOTIFY_ON_UPDATE'
    delete next.notifyPreference
    store.set(id, next)
    if (notify && route.type === 'LoyaltyObject') notifyHolder(id)
    return answerWith(next)
  }

  /** Google's required fields and its rules on reviewStatus and classId (an object's class must exist). */
  function checkRules(
    type: Route['type'],
    resource: Resource,
    action: 'insert' | 'update' | 'patch',
    stored?: Resource,
  ): Answer | undefined {
    const required = (field: string, value: unknown) =>
      value === undefined || value === '' ? refusal(400, `${field} is required.`) : undefined
    if (type === 'LoyaltyClass') {
      const logo = resource.programLogo as LoyaltyClass['programLogo']
      const status = resource.reviewStatus
      const refused =
        required('issuerName', resource.issuerName) ??
        required('programName', resource.programName) ??
        required('programLogo.sourceUri.uri', logo?.sourceUri?.uri) ??
        required('reviewStatus', status)
      if (refused) return refused
      if (status !== stored?.reviewStatus && status !== 'UNDER_REVIEW' && status !== 'DRAFT') {
        return refusal(400, `reviewStatus can only be set to DRAFT or UNDER_REVIEW, not ${String(status)}.`)
      }
      if (status === 'DRAFT' && stored && stored.reviewStatus !== 'DRAFT') {
        return refusal(400, 'A class whose review status has left DRAFT cannot go back to DRAFT.')
      }
      return undefined
    }
    const refused = required('classId', resource.classId) ?? required('state', resource.state)
    if (refused) return refused
    const classId = String(resource.classId)
    if (!ids.valid(classId)) return refusal(400, ids.invalid(classId))
    const loyaltyClass = classes.get(classId)
    if (!loyaltyClass) {
      return { ...refusal(404, `No class found for id ${classId}`), violation: `the class ${classId} does not exist` }
    }
    if (action !== 'patch' && loyaltyClass.reviewStatus === 'DRAFT') {
      return refusal(400, `The class ${classId} is a DRAFT: a draft class cannot be used to create any object.`)
    }
    return undefined
  }

  /** What Google answers for a stored resource: an object carries a copy of its class. */
  function present(resource: Resource) {
    const copy = structuredClone(resource)
    const loyaltyClass = copy.kind === 'walletobjects#loyaltyObject' && classes.get(String(copy.classId))
    if (loyaltyClass) copy.classReference = structuredClone(loyaltyClass)
    return copy
  }

  /** Notifies the holder within Google's limit (true), or counts a request beyond it (false). */
  function notifyHolder(objectId: string) {
    const times = notified.get(objectId) ?? []
    notified.set(objectId, times)
    const at = now()
    if (times.filter((time) => at - time < DAY_MS).length < NOTIFICATIONS_PER_DAY) {
      times.push(at)
      return true
    }
    throttled.set(objectId, (throttled.get(objectId) ?? 0) + 1)
    return false
  }

  return {
    perform,
    getClass: (id: string) => structuredClone(classes.get(id)),
    getObject: (id: string) => structuredClone(objects.get(id)),
    objectIds: () => [...objects.keys()],
    deleteObject: (id: string) => objects.delete(id),
    notifications: (objectId: string) => [...(notified.get(objectId) ?? [])],
    throttled: (objectId: string) => throttled.get(objectId) ?? 0,
    reset() {
      classes.clear()
      objects.clear()
      notified.clear()
      throttled.clear()
    },
  }
}

/** Ids are "{issuerId}.{identifier}", the identifier of letters, digits, '.', '_' or '-'. */
export function issuerIds(issuerId: string) {
  return {
    valid: (id: string) => id.startsWith(`${issuerId}.`) && /^[A-Za-z0-9._-]+$/.test(id.slice(issuerId.length + 1)),
    invalid: (id: string) =>
      `Invalid resource id ${JSON.stringify(id)}: it must be "${issuerId}.<identifier>", the identifier of ` +
      `letters, digits, '.', '_' or '-'.`,
  }
}

export function parseRoute(path: string): Route | undefined {
  const match = /^\/walletobjects\/v1\/(loyaltyClass|loyaltyObject)(?:\/([^/]+)(\/addMessage)?)?$/.exec(path)
  if (!match) return undefined
  return {
    type: match[1] === 'loyaltyClass' ? 'LoyaltyClass' : 'LoyaltyObject',
    ...(match[2] === undefined ? {} : { id: match[2] }),
    addMessage: Boolean(match[3]),
  }
}

/** Whether Google has this method on this path (the fake knows the loyalty ones only). */
export function allowed(method: string, route: Route) {
  if (route.addMessage) return method === 'POST' && route.type === 'LoyaltyObject'
  if (route.id === undefined) return method === 'POST'
  return method === 'GET' || method === 'PUT' || method === 'PATCH'
}

/** An 11th message: the app must keep each object within Google's 10. */
function tooManyMessages(id: string): Answer {
  return refusal(
    400,
    `The object ${id} would hold more than ${MESSAGES_PER_OBJECT} messages: remove one before adding another.`,
  )
}

/** Google's answer to a notifying message past the holder's notifications of the day (not the app's fault). */
export function quotaExceeded(id: string, stored: Record<string, unknown>): Answer {
  const message =
    `Quota exceeded for issuer ${id.split('.')[0]} when adding TEXT_AND_NOTIFY message to class ` +
    `${String(stored.classId)}.`
  const error = googleError(403, message)
  return {
    status: 403,
    body: { error: { ...error.error, errors: [{ message, domain: 'walletobjects', reason: 'quotaExceeded' }] } },
  }
}

/** A refusal of what the app must never send: Google's error, and a violation. */
export function refusal(status: number, message: string): Answer {
  return { status, body: googleError(status, message), violation: message }
}

export function googleError(code: number, message: string) {
  return { error: { code, message, status: STATUS_NAMES[code] ?? 'UNKNOWN' } }
}

function withoutNulls<T extends Record<string, unknown>>(resource: T): T {
  return Object.fromEntries(Object.entries(resource).filter(([, value]) => value !== null)) as T
}
