import { type NoReach } from '#app/services/push/card-reach.server.ts'

/**
 * Said once, at the top of the push pages, before the owner writes (issue 30, item 6): nobody can receive a message
 * from this card yet, and what brings customers within reach. The confirm page's Send is disabled meanwhile; a
 * message can still be written and scheduled, since it goes to whoever can be reached when it is sent. `alert`: a Send
 * was just refused for it (a forged one, or the last holder left meanwhile).
 */
export function NoReachNotice({ noReach, alert = false }: { noReach: NoReach; alert?: boolean }) {
  const { holders, appleWallet, googleWallet } = noReach
  return (
    <section className="notice-panel no-reach" aria-labelledby="no-reach-title" role={alert ? 'alert' : undefined}>
      <h2 id="no-reach-title" className="no-reach__title">
        Nobody can receive a message from this card yet
      </h2>
      <p>
        {holders === 0
          ? 'The card has no holders yet.'
          : `None of its ${holders === 1 ? 'holder has' : `${holders} holders have`} turned on notifications or added the card to a wallet.`}{' '}
        You can still write a message and schedule it: it goes to those who can be reached when it is sent.
      </p>
      <p>What brings customers within reach:</p>
      <ul>
        <li>After a stamp, ask them to tap ‘Turn on notifications’ on their card.</li>
        <li>
          On an iPhone, notifications need the card on the home screen first: in Safari, Share, then ‘Add to Home
          Screen’, then open the card from there.
        </li>
        {appleWallet ? (
          <li>Offer ‘Add to Apple Wallet’ on their card: a card in Apple Wallet gets every message.</li>
        ) : null}
        {googleWallet ? (
          <li>Offer ‘Save to Google Wallet’ on their card: a card in Google Wallet gets every message.</li>
        ) : null}
      </ul>
    </section>
  )
}
