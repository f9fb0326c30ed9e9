import { useEffect, useState } from 'react'
import { type KeptCopy } from '#app/routes/__pass-offline.tsx'

/**
 * 'Turn on notifications' on the holder's pass (issue #6): subscribes with the VAPID key and saves the subscription
 * at /p/{passId}/push-subscription (DELETE to turn off). React owns this section: the server renders the text for a
 * browser without JavaScript and no button (none could work); after hydration it shows the state and exactly the
 * one button that applies (docs/decisions/027-holder-pass-page-ownership.md).
 */
type PushState = { kind: 'static' | 'checking' | 'busy' | 'unavailable' | 'off' | 'on'; message: string }

const NEEDS_JAVASCRIPT = 'Notifications need JavaScript turned on in your browser.'
const INVITE = 'Get a message when you collect a stamp and when there is news.'
const ON = 'Notifications are on.'

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
      const registration = await passRegistration()
      const subscription = await registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: keyBytes(pushKey),
      })
      await send(address, 'POST', subscription.toJSON())
      setState({ kind: 'on', message: ON })
    } catch (error) {
      setState({ kind: 'off', message: `Notifications could not be turned on: ${messageOf(error)}` })
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
      setState({ kind: 'on', message: messageOf(error) })
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
  } catch (error) {
    return { kind: 'off', message: messageOf(error) }
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
  if (!registration) throw new Error('This browser cannot keep the card')
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
  if (!response.ok) throw new Error(answer.message || 'The server refused it')
  return answer
}

function keyBytes(text: string) {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4))
  return Uint8Array.from(binary, (char) => char.charCodeAt(0))
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))
