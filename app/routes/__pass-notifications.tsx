import { useEffect, useState } from 'react'
import { type KeptCopy } from '#app/routes/__pass-offline.tsx'

/**
 * 'Turn on notifications' on the holder's pass (issue #6): subscribes with the VAPID key and saves the subscription
 * at /p/{passId}/push-subscription (DELETE to turn off). React owns this section: the server renders the text for a
 * browser without JavaScript and no button (none could work); after hydration it shows the state and exactly the
 * one button that applies (docs/decisions/027-holder-pass-page-ownership.md).
 */
type PushState = {
  kind: 'static' | 'checking' | 'busy' | 'unavailable' | 'off' | 'failed' | 'on'
  message: string
}

const NEEDS_JAVASCRIPT = 'Notifications need JavaScript turned on in your browser.'
const INVITE = 'Get a message when you collect a stamp and when there is news.'
const ON = 'Notifications are on.'
/**
 * How long turning on may take. The browser's push service (Google's, Apple's, Mozilla's) answers within seconds
 * when it can be reached; without an answer the button must not say 'Turning on…' for ever (issue 30, item 5).
 */
export const TURN_ON_TIMEOUT_MS = 15_000
const TIMED_OUT =
  'Turning on took too long: your browser’s notification service did not answer. Check your connection and try again.'

export function PassNotifications({
  passId,
  pushKey,
  keptCopy,
}: {
  passId: string
  pushKey: string
  keptCopy: KeptCopy | undefined
}) {
  const [state, setState] = useState<PushState>({ kind: 'static', message: NEEDS_JAVASCRIPT })
  const address = `/p/${passId}/push-subscription`
  useEffect(() => {
    if (keptCopy === undefined) return
    let current = true
    setState({ kind: 'checking', message: 'Checking notifications…' })
    void currentState(address, keptCopy).then((next) => current && setState(next))
    return () => {
      current = false
    }
  }, [address, keptCopy])

  async function turnOn() {
    setState({ kind: 'busy', message: 'Turning on…' })
    try {
      if ((await Notification.requestPermission()) !== 'granted')
        return setState({ kind: 'off', message: 'Notifications were not allowed.' })
      const subscription = await withinTimeout(
        passRegistration().then((registration) =>
          registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(pushKey) }),
        ),
      )
      await withinTimeout(send(address, 'POST', subscription.toJSON()))
      setState({ kind: 'on', message: ON })
    } catch (error) {
      setState({ kind: 'failed', message: turnOnFailure(error) })
    }
  }

  async function turnOff() {
    setState({ kind: 'busy', message: 'Turning off…' })
    try {
      const subscription = await (await passRegistration()).pushManager.getSubscription()
      if (subscription) {
        await send(address, 'DELETE', { endpoint: subscription.endpoint })
        await subscription.unsubscribe()
      }
      setState({ kind: 'off', message: 'Notifications are off.' })
    } catch (error) {
      setState({
        kind: 'on',
        message:
          error instanceof Refused
            ? `Notifications could not be turned off: ${error.message}`
            : 'Notifications could not be turned off just now. Please try again.',
      })
    }
  }

  return (
    <section className="pass-page__push" aria-labelledby="push-heading">
      <h2 id="push-heading">Notifications</h2>
      <p id="pass-push-status" role="status">
        {state.message}
      </p>
      {state.kind === 'off' ? (
        <button type="button" className="button" onClick={turnOn}>
          Turn on notifications
        </button>
      ) : null}
      {state.kind === 'failed' ? (
        <button type="button" className="button" onClick={turnOn}>
          Try again
        </button>
      ) : null}
      {state.kind === 'on' ? (
        <button type="button" className="button button--ghost" onClick={turnOff}>
          Turn off notifications
        </button>
      ) : null}
      <p className="pass-page__note">
        On iPhone or iPad, add this card to your Home Screen first (see below), open it from there, then turn on
        notifications.
      </p>
    </section>
  )
}

async function currentState(address: string, keptCopy: KeptCopy): Promise<PushState> {
  if (!('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window)) {
    const message = /iP(hone|ad|od)/.test(navigator.userAgent)
      ? 'To get notifications, add this card to your Home Screen first, then open it from there.'
      : 'This browser cannot show notifications.'
    return { kind: 'unavailable', message }
  }
  if (keptCopy || !navigator.onLine) {
    return { kind: 'unavailable', message: 'You are offline: notifications can be changed when you are back online.' }
  }
  if (Notification.permission === 'denied') {
    return {
      kind: 'unavailable',
      message: 'Notifications are blocked for this site: allow them in your browser settings.',
    }
  }
  try {
    const subscription = await (await passRegistration()).pushManager.getSubscription()
    if (!subscription) return { kind: 'off', message: INVITE }
    const saved = (await (await fetch(`${address}?endpoint=${encodeURIComponent(subscription.endpoint)}`)).json()) as {
      subscribed?: boolean
    }
    // A subscription this device has but the server lost (removed after failures): saved again.
    if (!saved.subscribed) await send(address, 'POST', subscription.toJSON())
    return { kind: 'on', message: ON }
  } catch {
    // Not known (the check itself failed): the way to turn them on, rather than the browser's error text.
    return { kind: 'off', message: INVITE }
  }
}

/**
 * The pass's own worker registration, once its worker is active. The page's inline script registered it already;
 * registering again is a no-op that answers the registration even while the first one is still under way.
 */
async function passRegistration(): Promise<ServiceWorkerRegistration> {
  const registration = await navigator.serviceWorker
    .register('/pass-sw.js', { scope: location.pathname })
    .catch(() => null)
  // No worker (a private window, say): said in the holder's words by turnOnFailure.
  if (!registration) throw new DOMException('This browser cannot keep the card', 'InvalidStateError')
  await navigator.serviceWorker.ready
  return registration
}

async function send(address: string, method: 'POST' | 'DELETE', body: unknown) {
  const response = await fetch(address, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })
  const answer = (await response.json().catch(() => ({}))) as { message?: string }
  if (!response.ok) throw new Refused(answer.message || 'the card’s server refused it. Please try again later.')
  return answer
}

function keyBytes(text: string) {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4))
  return Uint8Array.from(binary, (char) => char.charCodeAt(0))
}

class TimedOut extends Error {}
/** Our own refusal from the server, whose words are already for the holder. */
class Refused extends Error {}

function withinTimeout<T>(promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimedOut()), TURN_ON_TIMEOUT_MS)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/**
 * Why turning on failed, in words a customer understands: never the browser's own text ("Registration failed -
 * push service error", "DOMException…"), which says nothing to them (issue 30, item 5).
 */
function turnOnFailure(error: unknown): string {
  if (error instanceof TimedOut) return TIMED_OUT
  if (error instanceof Refused) return `Notifications could not be turned on: ${error.message}`
  const name = error instanceof DOMException || error instanceof Error ? error.name : ''
  if (name === 'NotAllowedError')
    return 'Notifications are blocked for this site: allow them in your browser settings, then try again.'
  if (name === 'AbortError' || name === 'NetworkError' || !navigator.onLine)
    return 'Your browser’s notification service could not be reached. Check your connection and try again.'
  if (name === 'InvalidStateError' || name === 'SecurityError' || name === 'NotSupportedError')
    return 'Notifications cannot be turned on in this window (a private window cannot keep them). Open the card in a normal window, or add it to your Home Screen.'
  return 'Notifications could not be turned on just now. Please try again.'
}
