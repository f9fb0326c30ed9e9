import { data, type HeadersFunction, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, type MetaFunction } from '@remix-run/react'
import { CardPreview } from '#app/components/card-preview.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { InstallGuide, PASS_PAGE_SCRIPT } from '#app/routes/__pass-install.tsx'
import { RefreshLink, useLivePass } from '#app/routes/__pass-live.tsx'
import { LatestMessage } from '#app/routes/__pass-message.tsx'
import { PassNotifications } from '#app/routes/__pass-notifications.tsx'
import { OfflineNote, useKeptCopy } from '#app/routes/__pass-offline.tsx'
import { invariantResponse } from '#app/server/http-errors.server.ts'
import { progressOf, progressWords, rewardEarnedWords, schemeOf } from '#app/services/cards/loyalty-scheme.ts'
import { passQrSvg } from '#app/services/passes/pass-qr.server.ts'
import { getVapidKeys } from '#app/services/push/vapid.server.ts'
import { walletLinks } from '#app/services/wallet/wallet-links.server.ts'
import cardPreviewStylesHref from '#app/styles/card-preview.css?url'
import passStylesHref from '#app/styles/pass.css?url'
import { askOnPass } from '#app/utils/holder-details.ts'
import { formatLocalDate } from '#app/utils/local-time.ts'
import { useNonce } from '#app/utils/nonce-provider.ts'
import { settingsOf } from '#models/holder-profile.server.ts'
import { getPassView } from '#models/pass.server.ts'

/**
 * The holder's card: stamps collected, the reward, and the QR code plus short code staff scan or type. It needs no
 * JavaScript; with it, a service worker keeps it for offline viewing (docs/decisions/014-holder-pass-offline.md),
 * and notifications can be turned on. React owns every element of it
 * (docs/decisions/027-holder-pass-page-ownership.md).
 * Nothing on it depends on who asks, so server.ts answers it from a render cache keyed by the pass's version.
 */
export async function loader({ params }: LoaderFunctionArgs) {
  const pass = await getPassView(params.passId)
  invariantResponse(pass, 'Card not found')
  const { card: cardWithSettings, latestMessage: message } = pass
  const { holderDetails, ...card } = cardWithSettings
  const settings = settingsOf(holderDetails)
  return data(
    {
      pass: { id: pass.id, shortCode: pass.shortCode, stamps: pass.stamps, version: pass.pageVersion },
      card: { ...card, iconVersion: Math.round(card.version).toString(36) },
      // The card's question for holders, once they have the stamps it waits for and until they answer it.
      ask: settings && !pass.hasProfile && askOnPass(settings, pass) ? { fields: settings.fields } : null,
      // The date in the business's time zone, written here: the browser would format it differently from the server.
      message: message
        ? {
            title: message.title,
            body: message.body,
            link: message.link,
            sent: formatLocalDate(message.sentAt, message.timeZone),
          }
        : null,
      qrSvg: await passQrSvg(pass.shortCode),
      pushKey: (await getVapidKeys()).publicKey,
      wallets: walletLinks(pass.id),
    },
    // Always revalidated (a stamp changes it), never shared by proxies.
    { headers: { 'Cache-Control': 'private, no-cache' } },
  )
}

export const headers: HeadersFunction = ({ loaderHeaders }) => loaderHeaders

export default function PassPage() {
  const { pass, card, ask, message, qrSvg, pushKey, wallets } = useLoaderData<typeof loader>()
  const nonce = useNonce()
  const keptCopy = useKeptCopy()
  useLivePass(pass.id, pass.version, keptCopy === null)
  const progress = progressOf(schemeOf(card), pass.stamps)
  return (
    <main className="pass-page">
      <h1>{card.businessName ? `Your ${card.businessName} stamp card` : 'Your stamp card'}</h1>
      <OfflineNote copy={keptCopy} />
      <CardPreview
        card={{ ...card, reward: undefined, logoUrl: card.hasLogo ? `/p/${pass.id}/logo?v=${card.iconVersion}` : null }}
        collected={progress.collected}
      />
      <p className="pass-page__progress">{progressWords(progress)}</p>
      <RefreshLink passId={pass.id} />
      {progress.earned && card.reward ? <p className="pass-page__earned">{rewardEarnedWords(card.reward)}</p> : null}
      {!progress.earned && card.reward ? <p className="pass-page__reward">{`Reward: ${card.reward}`}</p> : null}
      <LatestMessage message={message} />
      <section className="pass-page__code" aria-label="Your code">
        <div
          className="pass-page__qr"
          role="img"
          aria-label={`QR code of ${pass.shortCode}`}
          dangerouslySetInnerHTML={{ __html: qrSvg }}
        />
        <p className="pass-page__short-code">{pass.shortCode}</p>
        <p className="pass-page__note">Show this at the counter to collect a stamp.</p>
      </section>
      {wallets.appleWallet || wallets.googleWallet ? (
        // Plain links, no JavaScript needed: Safari opens the pass in Wallet; Google's save page adds it on Android.
        <p className="pass-page__wallets">
          {wallets.appleWallet ? (
            <a className="pass-page__wallet pass-page__wallet--apple" href={wallets.appleWallet}>
              Add to Apple Wallet
            </a>
          ) : null}
          {wallets.googleWallet ? (
            <a className="pass-page__wallet pass-page__wallet--google" href={wallets.googleWallet}>
              Save to Google Wallet
            </a>
          ) : null}
        </p>
      ) : null}
      {ask ? <KeepCardSafe passId={pass.id} /> : null}
      {card.terms ? <p className="pass-page__terms">{card.terms}</p> : null}
      <PassNotifications passId={pass.id} pushKey={pushKey} keptCopy={keptCopy} />
      <InstallGuide />
      <Link to={`/p/${pass.id}/data`} className="pass-page__remove">
        Your data
      </Link>
      {/* Under /c, where this device's join cookie is sent: only the device that got the card may remove it. */}
      <Link to={`/c/remove/${pass.id}`} className="pass-page__remove">
        Remove this card
      </Link>
      <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: PASS_PAGE_SCRIPT }} />
    </main>
  )
}

/** The card's question, once the card is worth keeping: its form has a page of its own, linked from here. */
function KeepCardSafe({ passId }: { passId: string }) {
  return (
    <section className="pass-page__keep" aria-labelledby="keep-card-safe">
      <h2 id="keep-card-safe">Keep your card safe: get it back on a new phone</h2>
      <p className="pass-page__note">A few optional details, so this card and its stamps are never lost.</p>
      <Link to={`/p/${passId}/details`} className="button button--block">
        Add my details
      </Link>
    </section>
  )
}

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

// An unknown pass has its own words on the holder's page; any other error goes on to the root's page.
export function ErrorBoundary() {
  return <GeneralErrorBoundary statusHandlers={{ 404: () => <PassNotFound /> }} passOnOthers />
}

function PassNotFound() {
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
