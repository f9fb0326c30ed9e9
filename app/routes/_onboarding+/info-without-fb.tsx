import { Link, type MetaFunction } from '@remix-run/react'

/** For owners without a business page on a social network: other ways to let customers know about the card. */
export default function InfoWithoutFacebook() {
  return (
    <article className="onboarding-article">
      <h1>No Facebook or Instagram page? No problem</h1>
      <p className="lead">
        Most stamp cards are won at the counter, not online. These are the ways that work best for a shop without a
        social media page, roughly in order of how many customers they bring.
      </p>
      <h2>1. A poster at the counter</h2>
      <p>
        Print your card’s poster and place it where people pay. Ask every customer once: ‘Would you like our stamp card?
        Scan here, it takes ten seconds.’ Then give the first stamp right away, so the card never starts empty.
      </p>
      <h2>2. Receipts and bags</h2>
      <p>
        Add a line to your receipt (‘Collect stamps: scan the code at the till’) or a small sticker with the QR code on
        bags, boxes and cups. It reaches customers again at home.
      </p>
      <h2>3. Google Business Profile</h2>
      <p>
        Your free Google Business Profile is what people see when they search for you or find you on Maps. Add a post or
        an offer about the card, with the card’s link, and mention it in your description. Replying to reviews with a
        thank-you and a word about the card works too.
      </p>
      <h2>4. A window sticker or A-board</h2>
      <p>
        A sticker on the door or an A-board on the pavement (‘Every 10th coffee free — ask us’) tells passers-by there
        is a reason to choose you over the shop next door.
      </p>
      <h2>5. Word of mouth</h2>
      <p>
        Make sure everyone on your team can explain the card in one sentence. Regulars love telling friends about a free
        coffee; a small bonus stamp for bringing a friend helps them do it.
      </p>
      <h2>6. Your newsletter, website or messages</h2>
      <p>
        If you send e-mails or text messages to customers, or have a simple website, add the card’s link with one line
        about the reward. Once customers hold the card, you can reach them with push messages from Stampwise — no social
        page needed.
      </p>
      <p>
        <Link to="/account" className="button">
          Back to my account
        </Link>
      </p>
    </article>
  )
}

export const meta: MetaFunction = () => [{ title: 'Announce your card without social media — Stampwise' }]
