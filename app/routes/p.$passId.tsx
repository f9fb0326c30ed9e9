import { data, type HeadersFunction, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import cardPreviewStylesHref from '#app/styles/card-preview.css?url'
import { isRouteErrorResponse, Link, useLoaderData, useRouteError, type MetaFunction } from '@remix-run/react'
import { CardPreview } from '#app/components/card-preview.tsx'
import passStylesHref from '#app/styles/pass.css?url'
import { useNonce } from '#app/utils/nonce-provider.ts'
import { passQrSvg } from '#app/utils/pass-qr.server.ts'
import { getVapidKeys } from '#app/utils/vapid.server.ts'
import { getPassView } from '#models/pass.server.ts'

/**
 * The holder's card: stamps collected, the reward, and the QR code plus short code staff scan or type. It needs no
 * JavaScript; with it, a service worker keeps it for offline viewing (docs/decisions/014-holder-pass-offline.md).
 * Nothing on it depends on who asks, so server.ts answers it from a render cache keyed by the pass's version.
 */
export async function loader({ params }: LoaderFunctionArgs) {
  const pass = await getPassView(params.passId)
  if (!pass) throw data('Card not found', { status: 404 })
  const { card } = pass
  return data(
    {
      pass: { id: pass.id, shortCode: pass.shortCode, stamps: pass.stamps },
      card: { ...card, iconVersion: Math.round(card.version).toString(36) },
      qrSvg: await passQrSvg(pass.shortCode),
      pushKey: (await getVapidKeys()).publicKey,
    },
    // Always revalidated (a stamp changes it), never shared by proxies.
    { headers: { 'Cache-Control': 'private, no-cache' } },
  )
}

export const headers: HeadersFunction = ({ loaderHeaders }) => loaderHeaders

export default function PassPage() {
  const { pass, card, qrSvg, pushKey } = useLoaderData<typeof loader>()
  const nonce = useNonce()
  const earned = pass.stamps >= card.stampsRequired
  return (
    <main className="pass-page">
      <CardPreview
        card={{ ...card, reward: undefined, logoUrl: card.hasLogo ? `/p/${pass.id}/logo?v=${card.iconVersion}` : null }}
        collected={Math.min(pass.stamps, card.stampsRequired)}
      />
      <p className="pass-page__progress">{`${pass.stamps} of ${card.stampsRequired} stamps`}</p>
      {earned && card.reward ? <p className="pass-page__earned">{`Reward earned: ${card.reward}`}</p> : null}
      {!earned && card.reward ? <p className="pass-page__reward">{`Reward: ${card.reward}`}</p> : null}
      <section className="pass-page__code" aria-label="Your code">
        <div className="pass-page__qr" role="img" aria-label={`QR code of ${pass.shortCode}`} dangerouslySetInnerHTML={{ __html: qrSvg }} />
        <p className="pass-page__short-code">{pass.shortCode}</p>
        <p className="pass-page__note">Show this at the counter to collect a stamp.</p>
      </section>
      {card.terms ? <p className="pass-page__terms">{card.terms}</p> : null}
      <PushSwitch passId={pass.id} pushKey={pushKey} />
      <InstallGuide />
      <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: PASS_PAGE_SCRIPT }} />
    </main>
  )
}

/**
 * Notifications (issue #6): PASS_PAGE_SCRIPT shows the state and the one button that applies, subscribes with the
 * VAPID key and saves the subscription at /p/{passId}/push-subscription (DELETE to turn off). Without JavaScript
 * the section says that notifications need it.
 */
function PushSwitch({ passId, pushKey }: { passId: string; pushKey: string }) {
  return (
    <section className="pass-page__push" aria-labelledby="push-heading" id="pass-push" data-key={pushKey} data-address={`/p/${passId}/push-subscription`}>
      <h2 id="push-heading">Notifications</h2>
      <p id="pass-push-status" role="status">
        Get a message when you collect a stamp and when there is news. This needs JavaScript turned on in your browser.
      </p>
      <button type="button" className="button" id="pass-push-on" hidden>
        Turn on notifications
      </button>
      <button type="button" className="button button--ghost" id="pass-push-off" hidden>
        Turn off notifications
      </button>
      <p className="pass-page__note">
        On iPhone or iPad, add this card to your Home Screen first (see below), open it from there, then turn on
        notifications.
      </p>
    </section>
  )
}

/**
 * 'Add to Home Screen' guidance for the pass page, per platform, readable without JavaScript. With JavaScript,
 * PASS_PAGE_SCRIPT registers the pass's service worker (public/pass-sw.js, scoped to this pass) and turns the
 * browser's install prompt (beforeinstallprompt, Chrome and Edge) into an 'Install' button.
 */
function InstallGuide() {
  return (
    <section className="pass-page__install" aria-labelledby="install-heading">
      <h2 id="install-heading">Add to Home Screen</h2>
      <p>Keep your card one tap away:</p>
      <button type="button" className="button" id="pass-install" hidden>
        Install
      </button>
      <ul>
        <li>
          <strong>iPhone or iPad (Safari):</strong> tap Share, then Add to Home Screen.
        </li>
        <li>
          <strong>Android (Chrome):</strong> open the ⋮ menu, then Install app or Add to Home screen.
        </li>
        <li>
          <strong>Elsewhere:</strong> bookmark this page; it is your card.
        </li>
      </ul>
    </section>
  )
}

const PASS_PAGE_SCRIPT = `(function(){
var registration=null;
if('serviceWorker' in navigator){registration=navigator.serviceWorker.register('/pass-sw.js',{scope:location.pathname}).catch(function(){return null})}
var button=document.getElementById('pass-install'),prompt=null;
addEventListener('beforeinstallprompt',function(event){event.preventDefault();prompt=event;if(button)button.hidden=false});
if(button)button.addEventListener('click',function(){if(!prompt)return;prompt.prompt();prompt=null;button.hidden=true});
var box=document.getElementById('pass-push');if(!box)return;
var status=document.getElementById('pass-push-status'),on=document.getElementById('pass-push-on'),off=document.getElementById('pass-push-off');
var address=box.getAttribute('data-address'),key=box.getAttribute('data-key');
function say(text,state){status.textContent=text;on.hidden=state!=='off';off.hidden=state!=='on'}
function send(method,body){return fetch(address,{method:method,headers:{'Content-Type':'application/json'},body:JSON.stringify(body)}).then(function(r){return r.json().then(function(j){if(!r.ok)throw new Error(j.message||'The server refused it');return j})})}
function bytes(text){var s=atob(text.replace(/-/g,'+').replace(/_/g,'/')+'==='.slice((text.length+3)%4));var out=new Uint8Array(s.length);for(var i=0;i<s.length;i++)out[i]=s.charCodeAt(i);return out}
function ready(){return registration.then(function(r){if(!r)throw new Error('This browser cannot keep the card');return navigator.serviceWorker.ready.then(function(){return r})})}
if(!registration||!('PushManager' in window)||!('Notification' in window)){say(/iP(hone|ad|od)/.test(navigator.userAgent)?'To get notifications, add this card to your Home Screen first, then open it from there.':'This browser cannot show notifications.');return}
function show(){if(Notification.permission==='denied'){say('Notifications are blocked for this site: allow them in your browser settings.');return}
ready().then(function(r){return r.pushManager.getSubscription()}).then(function(sub){
if(!sub){say('Get a message when you collect a stamp and when there is news.','off');return}
return fetch(address+'?endpoint='+encodeURIComponent(sub.endpoint)).then(function(r){return r.json()}).then(function(j){
if(j.subscribed)return say('Notifications are on.','on');return send('POST',sub.toJSON()).then(function(){say('Notifications are on.','on')})})
}).catch(function(e){say(e.message,'off')})}
on.addEventListener('click',function(){say('Turning on…');Notification.requestPermission().then(function(permission){
if(permission!=='granted'){say('Notifications were not allowed.','off');return}
return ready().then(function(r){return r.pushManager.subscribe({userVisibleOnly:true,applicationServerKey:bytes(key)})}).then(function(sub){return send('POST',sub.toJSON())}).then(function(){say('Notifications are on.','on')})
}).catch(function(e){say('Notifications could not be turned on: '+e.message,'off')})});
off.addEventListener('click',function(){say('Turning off…');ready().then(function(r){return r.pushManager.getSubscription()}).then(function(sub){
if(!sub)return;return send('DELETE',{endpoint:sub.endpoint}).then(function(){return sub.unsubscribe()})}).then(function(){say('Notifications are off.','off')}).catch(function(e){say(e.message,'on')})});
show();
})()`

// Only pass.css: the holder's pages stay small for old phones on slow networks (root.tsx).
export const handle = { ownStylesOnly: true }

export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: cardPreviewStylesHref },
  { rel: 'stylesheet', href: passStylesHref },
]

export const meta: MetaFunction<typeof loader> = ({ data, params }) => {
  if (!data) return [{ title: 'Card not found — Stampwise' }]
  const icon = `/p/${params.passId}/icons/192-${data.card.iconVersion}.png`
  return [
    { title: `${data.card.title || 'Stamp card'} — ${data.card.businessName}` },
    { tagName: 'link', rel: 'manifest', href: `/p/${params.passId}/manifest.webmanifest` },
    { tagName: 'link', rel: 'apple-touch-icon', href: icon },
    { name: 'apple-mobile-web-app-capable', content: 'yes' },
    { name: 'apple-mobile-web-app-title', content: data.card.title || data.card.businessName || 'Stamp card' },
  ]
}

export function ErrorBoundary() {
  const error = useRouteError()
  if (!isRouteErrorResponse(error) || error.status !== 404) throw error
  return (
    <main className="pass-page pass-page--missing">
      <h1>We can’t find this card</h1>
      <p>The address may be incomplete. Open the link you saved when you got your card, or ask at the counter.</p>
      <Link to="/" className="button">
        Go to Stampwise
      </Link>
    </main>
  )
}
