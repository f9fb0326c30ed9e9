/**
 * Who may open what: one row per address of the app (page or JSON call), checked by authorization.test.ts as a
 * guest, owner A, owner B, an admin, a staff member of owner A (`staff`) and one of owner B (`staffB`), with GET
 * and, for routes with an action, a POST with an empty body (or the row's minimal `body`). Every record in an
 * address is owner A's (docs/product/contracts.md, "Foreign records": another owner's card, pass, message or template
 * answers 404; a user id that is not the caller's answers 403).
 *
 * The route list comes from the build: a route without a row here, or a row without its route, fails the test.
 */
export const ROLES = ['guest', 'ownerA', 'ownerB', 'admin', 'staff', 'staffB'] as const
export type Role = (typeof ROLES)[number]

/**
 * 'ok': 2xx. 'login': a redirect to /login?redirectTo=<this address>. `{ to }`: a redirect to that address
 * (`{card}` and the like are filled from the records). A number: that status.
 */
export type Outcome = 'ok' | 'login' | { to: string | RegExp } | 400 | 401 | 403 | 404 | 405 | 409
export type Answers = Record<Role, Outcome>

/** Owner A's records the addresses are filled with (and a few public things: a blog post, a missing page). */
export type RecordName = 'userA' | 'card' | 'slug' | 'pass' | 'notification' | 'template' | 'icon' | 'post' | 'nowhere'

export type Row = {
  /** The route's address as the build names it: `/account/:cardId/poster`. */
  route: string
  /** How to fill each parameter (`*` for a splat); the query string (`{card}` and the like are filled). */
  fill?: Record<string, RecordName>
  query?: Record<string, string>
  get: Answers
  /**
   * Routes with an action. `body` is the POST's form body (else empty; `{card}` and the like are filled): a call
   * that checks its input before the record gets a valid one, so that owner B's answer is about the record.
   */
  post?: Answers
  body?: Record<string, string>
  /**
   * What an allowed POST destroys, made anew for each role's request: 'session' logs the role in again (logout),
   * 'card' gives owner A a new card to name (delete).
   */
  fresh?: 'session' | 'card'
}

const to = (place: string | RegExp): Outcome => ({ to: place })
const everyone = (outcome: Outcome): Answers => ({
  guest: outcome,
  ownerA: outcome,
  ownerB: outcome,
  admin: outcome,
  staff: outcome,
  staffB: outcome,
})
/**
 * Staff (docs/product/staff-locations-rules.md) may only stamp at /staff: every owner page, admin page
 * and JSON call answers them 404, as for a foreign record. The helpers below give every row that answer.
 */
const STAFF_REFUSED = { staff: 404, staffB: 404 } as const
/** Pages for the signed-in owners and admins: a guest is sent to /login. */
const signedIn = (allowed: Outcome = 'ok'): Answers => ({
  guest: 'login',
  ownerA: allowed,
  ownerB: allowed,
  admin: allowed,
  ...STAFF_REFUSED,
})
/** Owner A's records: anyone else signed in gets 404, an admin too (admins reach them through /admin). */
const ownerA = (allowed: Outcome = 'ok'): Answers => ({
  guest: 'login',
  ownerA: allowed,
  ownerB: 404,
  admin: 404,
  ...STAFF_REFUSED,
})
const adminOnly = (allowed: Outcome = 'ok'): Answers => ({
  guest: 'login',
  ownerA: 403,
  ownerB: 403,
  admin: allowed,
  ...STAFF_REFUSED,
})
/** Guest-only pages: the signed-in are sent to their account, staff to theirs. */
const guestOnly = (guest: Outcome = 'ok'): Answers => ({
  guest,
  ownerA: to('/account'),
  ownerB: to('/account'),
  admin: to('/account'),
  staff: to('/staff'),
  staffB: to('/staff'),
})
/** JSON calls: 401 (JSON) for a guest. */
const api = (allowed: Outcome = 'ok'): Answers => ({
  guest: 401,
  ownerA: allowed,
  ownerB: allowed,
  admin: allowed,
  ...STAFF_REFUSED,
})
const apiOwnerA = (allowed: Outcome = 'ok'): Answers => ({
  guest: 401,
  ownerA: allowed,
  ownerB: 404,
  admin: 404,
  ...STAFF_REFUSED,
})
const apiOwnUserId = (allowed: Outcome): Answers => ({
  guest: 401,
  ownerA: allowed,
  ownerB: 403,
  admin: 403,
  ...STAFF_REFUSED,
})
const LOGIN_PAGE = (guest: Outcome): Answers => ({
  guest,
  ownerA: to('/account'),
  ownerB: to('/account'),
  admin: to('/main'),
  staff: to('/staff'),
  staffB: to('/staff'),
})
/** The staff counter's pages: staff of any owner; owners and admins get 404 (they stamp at /account). */
const staffOnly = (allowed: Outcome = 'ok'): Answers => ({
  guest: 'login',
  ownerA: 404,
  ownerB: 404,
  admin: 404,
  staff: allowed,
  staffB: allowed,
})
/** Owner A's card at the counter: their staff only; owner B's staff get 404 like a foreign record. */
const staffOfA = (allowed: Outcome = 'ok'): Answers => ({ ...staffOnly(allowed), staffB: 404 })
const OK = everyone('ok')
const DESIGN = {
  businessName: 'Corner Coffee',
  title: 'Coffee card',
  stampsRequired: '8',
  backgroundColor: '#1f3a5f',
  textColor: '#ffffff',
  stampIcon: 'coffee',
}
const NOT_ALLOWED = everyone(405)
const INVALID = everyone(400)

export const AUTHORIZATION_TABLE: Row[] = [
  // Public site: everyone; its contact form answers an empty message with 400.
  { route: '/', get: OK },
  { route: '/about', get: OK },
  { route: '/blog', get: OK },
  { route: '/blog/:slug', fill: { slug: 'post' }, get: OK },
  { route: '/contacts', get: OK, post: INVALID },
  { route: '/privacy-policy', get: OK },
  { route: '/terms', get: OK },
  { route: '/*', fill: { '*': 'nowhere' }, get: everyone(404) },
  { route: '/feedback', get: OK, post: INVALID },

  // Sign-in pages: guests only, their forms too (a signed-in owner goes to the account; /login sends an owner
  // without a card to /main). An empty form is 400.
  { route: '/login', get: LOGIN_PAGE('ok'), post: LOGIN_PAGE(400) },
  { route: '/sign-up', get: guestOnly(), post: guestOnly(400) },
  { route: '/forgot-password', get: guestOnly(), post: guestOnly(400) },
  { route: '/reset-password-link', get: guestOnly() },
  { route: '/password-updated', get: guestOnly() },
  { route: '/verify-email', get: guestOnly(), post: guestOnly(400) },
  // Without the mailed token: 400 for a guest.
  { route: '/change-password', get: guestOnly(400), post: guestOnly(400) },
  // A staff invitation's page (issue 20): without the mailed token, 400 for a guest. The signed in (a shop's tablet)
  // see who is signed in and a way to log out; their post is refused until they do.
  { route: '/join-team', get: { ...everyone('ok'), guest: 400 }, post: { ...everyone(409), guest: 400 } },
  // Declining one (issue 30): the mailed token is the proof, signed in or not; without it, 400 for everyone.
  { route: '/decline-invitation', get: everyone(400), post: everyone(400) },
  // Confirms on load, signed in or not (docs/product/contracts.md); without a token it only shows the page.
  { route: '/email-confirmed', get: OK },
  {
    route: '/logout',
    get: { ...signedIn(), guest: to('/login'), staff: 'ok', staffB: 'ok' },
    post: everyone(to('/login')),
    fresh: 'session',
  },
  // Google and Apple sign-in are not configured in tests: back to /login, whoever asks.
  { route: '/login_google', get: everyone(to(/^\/login/)) },
  { route: '/login_apple', get: everyone(to(/^\/login/)) },
  { route: '/auth_google', get: everyone(to(/^\/login/)) },
  { route: '/auth_apple', get: everyone(to(/^\/login/)), post: everyone(to(/^\/login/)) },

  // Card onboarding: signed in; each step names owner A's card by ?cardId= (another owner: 404). Continue moves on.
  {
    route: '/main',
    query: { cardId: '{card}' },
    get: ownerA(),
    post: ownerA(to('/card_reward?cardId={card}')),
    body: DESIGN,
  },
  { route: '/card_reward', query: { cardId: '{card}' }, get: ownerA(), post: ownerA(400) },
  { route: '/card_ready', query: { cardId: '{card}' }, get: ownerA(), post: ownerA(to('/your_qr_code?cardId={card}')) },
  { route: '/your_qr_code', query: { cardId: '{card}' }, get: ownerA(), post: ownerA(to('/easy_way?cardId={card}')) },
  { route: '/easy_way', query: { cardId: '{card}' }, get: ownerA(), post: ownerA(to('/place_your_qr?cardId={card}')) },
  { route: '/place_your_qr', query: { cardId: '{card}' }, get: ownerA(), post: ownerA(to('/win_win?cardId={card}')) },
  { route: '/win_win', query: { cardId: '{card}' }, get: ownerA(), post: ownerA(to('/account')) },
  // Only a pre-made account's card shows here; an owner without one goes to their start (/account, or /main).
  { route: '/premaid_card', get: signedIn(to(/^\/(account|main)$/)) },
  { route: '/info-without-fb', get: signedIn() },

  // The owner's account: signed in; a card (and its messages and templates) is owner A's, so anyone else gets 404.
  { route: '/account', get: signedIn() },
  { route: '/account/:cardId', fill: { cardId: 'card' }, get: ownerA(), post: ownerA(400) },
  { route: '/account/:cardId/poster', fill: { cardId: 'card' }, get: ownerA() },
  { route: '/account/:cardId/qr_code', fill: { cardId: 'card' }, get: ownerA() },
  { route: '/account/:cardId/qr_code.png', fill: { cardId: 'card' }, get: ownerA() },
  { route: '/account/:cardId/qr_code.svg', fill: { cardId: 'card' }, get: ownerA() },
  { route: '/account/qr_code/:cardId', fill: { cardId: 'card' }, get: ownerA() },
  { route: '/account/:cardId/scan', fill: { cardId: 'card' }, get: ownerA(), post: ownerA(400) },
  // The CSV exports (issue 18): downloads, GET only.
  { route: '/account/:cardId/export/holders.csv', fill: { cardId: 'card' }, get: ownerA() },
  { route: '/account/:cardId/export/stamps.csv', fill: { cardId: 'card' }, get: ownerA() },
  { route: '/account/:cardId/push_notification', fill: { cardId: 'card' }, get: ownerA() },
  { route: '/account/:cardId/push_notification/create', fill: { cardId: 'card' }, get: ownerA(), post: ownerA(400) },
  { route: '/account/:cardId/push_notification/history', fill: { cardId: 'card' }, get: ownerA() },
  // Automatic messages (issue 19): the card's settings page, its forms told apart by intent (none: 400).
  { route: '/account/:cardId/automations', fill: { cardId: 'card' }, get: ownerA(), post: ownerA(400) },
  // Stamping rules (issue 20): one form; an empty one is 400.
  { route: '/account/:cardId/rules', fill: { cardId: 'card' }, get: ownerA(), post: ownerA(400) },
  // What a card asks its holders (issue 34); an empty form misses when to ask: 400.
  { route: '/account/:cardId/holder-details', fill: { cardId: 'card' }, get: ownerA(), post: ownerA(400) },
  // Editing a published card (issue 30): the design and reward in one form; an empty one is 400.
  { route: '/account/:cardId/edit', fill: { cardId: 'card' }, get: ownerA(), post: ownerA(400) },
  // Scheduled messages (issue 19): the list and its Cancel, never gated.
  { route: '/account/:cardId/push_notification/scheduled', fill: { cardId: 'card' }, get: ownerA(), post: ownerA(400) },
  // Holders (issue 18): the list and one holder's history.
  { route: '/account/:cardId/holders', fill: { cardId: 'card' }, get: ownerA() },
  // The holder's details, corrected or erased by the owner (issue 34): an empty form names no intent, 400.
  {
    route: '/account/:cardId/holders/:passId',
    fill: { cardId: 'card', passId: 'pass' },
    get: ownerA(),
    post: ownerA(400),
  },
  { route: '/account/:cardId/push_notification/template', fill: { cardId: 'card' }, get: ownerA() },
  {
    route: '/account/:cardId/push_notification/template/:templateId/create',
    fill: { cardId: 'card', templateId: 'template' },
    get: ownerA(),
    post: ownerA(400),
  },
  {
    route: '/account/:cardId/push_notification/confirm/:notificationId',
    fill: { cardId: 'card', notificationId: 'notification' },
    get: ownerA(),
    post: ownerA(409),
  },
  // The activity (issue 20): each owner's own events, filtered from the address; the CSV with the same filters.
  { route: '/account/activity', get: signedIn() },
  { route: '/account/activity.csv', get: signedIn() },
  { route: '/account/contact-us', get: signedIn(), post: signedIn(400) },
  { route: '/account/help', get: signedIn() },
  { route: '/account/limits', get: signedIn() },
  { route: '/account/limits_trial', get: signedIn() },
  { route: '/account/notifications', get: signedIn(), post: signedIn(400) },
  // Locations (issue 20): each owner sees and changes only their own; an empty form is 400.
  { route: '/account/locations', get: signedIn(), post: signedIn(400) },
  { route: '/account/plan', get: signedIn(), post: signedIn(400) },
  { route: '/account/profile', get: signedIn(), post: signedIn(400) },
  { route: '/account/tariffs', get: signedIn(), post: signedIn(400) },
  // The signed-in owner's own team (issue 20): every owner has one; an empty form is 400.
  { route: '/account/team', get: signedIn(), post: signedIn(400) },

  // The staff counter (issue 20): staff only. Its location form posts to /staff (an empty one: 400); owner A's card
  // is stamped by owner A's staff only (docs/product/staff-locations-rules.md).
  { route: '/staff', get: staffOnly(), post: staffOnly(400) },
  { route: '/staff/:cardId/scan', fill: { cardId: 'card' }, get: staffOfA(), post: staffOfA(400) },
  { route: '/staff/password', get: staffOnly(), post: staffOnly(400) },

  // Admin area: the admin role, checked by every loader and action (a guest goes to /login, an owner gets 403, staff
  // 404).
  { route: '/admin', get: adminOnly() },
  { route: '/admin/feedback', get: adminOnly(), post: adminOnly(400) },
  { route: '/admin/users/new', get: adminOnly(), post: adminOnly(400) },
  { route: '/admin/users/:userId', fill: { userId: 'userA' }, get: adminOnly(), post: adminOnly(400) },
  {
    route: '/admin/users/:userId/cards/:cardId/edit',
    fill: { userId: 'userA', cardId: 'card' },
    get: adminOnly(),
    post: adminOnly(400),
  },

  // JSON calls: 401 for a guest; the wrong method is 405. Owner A's card or message: 404 for anyone else; owner
  // A's user id: 403 for anyone else.
  { route: '/api/auth/me', get: api(), post: NOT_ALLOWED },
  { route: '/api/auth/login', get: NOT_ALLOWED, post: INVALID },
  { route: '/api/auth/signup', get: NOT_ALLOWED, post: INVALID },
  { route: '/api/auth/logout', get: NOT_ALLOWED, post: OK, fresh: 'session' },
  { route: '/api/auth/forgot-password', get: NOT_ALLOWED, post: INVALID },
  { route: '/api/auth/change-password', get: NOT_ALLOWED, post: INVALID },
  { route: '/api/auth/verify-email', get: NOT_ALLOWED, post: INVALID },
  { route: '/api/auth/verify-token', get: NOT_ALLOWED, post: INVALID },
  { route: '/api/auth/verify-change-password-token', get: NOT_ALLOWED, post: INVALID },
  { route: '/api/account/user_data', get: api(), post: NOT_ALLOWED },
  { route: '/api/account/user-cards', get: api(), post: NOT_ALLOWED },
  { route: '/api/account/plan', get: api(), post: NOT_ALLOWED },
  { route: '/api/account/feedback', get: NOT_ALLOWED, post: api(400) },
  { route: '/api/account/cards/:id', fill: { id: 'card' }, get: apiOwnerA(), post: NOT_ALLOWED },
  { route: '/api/account/qr_code/:cardId', fill: { cardId: 'card' }, get: apiOwnerA(), post: NOT_ALLOWED },
  { route: '/api/account/delete/:id', fill: { id: 'card' }, get: NOT_ALLOWED, post: apiOwnerA(), fresh: 'card' },
  { route: '/api/account/profile/delete/:id', fill: { id: 'userA' }, get: NOT_ALLOWED, post: apiOwnUserId(400) },
  {
    route: '/api/account/profile/update/email/:userId',
    fill: { userId: 'userA' },
    get: NOT_ALLOWED,
    post: apiOwnUserId(400),
  },
  {
    route: '/api/account/:cardId/push_notification/template-api',
    fill: { cardId: 'card' },
    query: { templates: 'own' },
    get: apiOwnerA(),
    post: NOT_ALLOWED,
  },
  {
    route: '/api/account/:cardId/push_notification/confirm/:notificationId/data',
    fill: { cardId: 'card', notificationId: 'notification' },
    get: apiOwnerA(),
    post: NOT_ALLOWED,
  },
  { route: '/api/onboarding/total-cards', get: api(), post: NOT_ALLOWED },
  { route: '/api/onboarding/card-ready', query: { cardId: '{card}' }, get: apiOwnerA(), post: NOT_ALLOWED },
  { route: '/api/onboarding/qr-code', query: { cardId: '{card}' }, get: apiOwnerA(), post: NOT_ALLOWED },
  { route: '/api/onboarding/card-constructor', get: NOT_ALLOWED, post: api(400) },
  {
    route: '/api/onboarding/card-reward',
    get: NOT_ALLOWED,
    post: apiOwnerA(),
    body: { cardId: '{card}', reward: 'A free coffee' },
  },

  // Holders: public by capability, the card's slug or the pass's id is the credential. Joining makes a new pass.
  { route: '/c/:slug', fill: { slug: 'slug' }, get: OK, post: everyone(to(/^\/p\/[0-9a-f-]{36}$/)) },
  { route: '/p/:passId', fill: { passId: 'pass' }, get: OK },
  // Only the device that got the pass may remove it (its join cookie, which the walk's roles do not hold).
  { route: '/c/remove/:passId', fill: { passId: 'pass' }, get: everyone(403), post: everyone(403) },
  { route: '/p/:passId/logo', fill: { passId: 'pass' }, get: OK },
  // Apple Wallet is off in this walk: no pass to download (tests/integration/apple-wallet.test.ts has it on).
  { route: '/p/:passId/wallet.pkpass', fill: { passId: 'pass' }, get: everyone(404) },
  // Google Wallet is off in this walk too: no save link (tests/e2e/google-wallet.spec.ts has it on, with its fake).
  { route: '/p/:passId/google-wallet', fill: { passId: 'pass' }, get: everyone(404) },
  // The card's logo, public like its join page (docs/product/holders-and-cards.md: Google Wallet's class points at it).
  { route: '/cards/:cardId/logo.png', fill: { cardId: 'card' }, get: OK },
  { route: '/p/:passId/icons/:file', fill: { passId: 'pass', file: 'icon' }, get: OK },
  { route: '/p/:passId/manifest.webmanifest', fill: { passId: 'pass' }, get: OK },
  { route: '/p/:passId/push-subscription', fill: { passId: 'pass' }, get: OK, post: INVALID },
  // The holder's details (issue 34), by the pass's capability; an empty form gives nothing and goes back to the pass.
  { route: '/p/:passId/details', fill: { passId: 'pass' }, get: OK, post: everyone(to('/p/{pass}')) },
  // 'Your data' by the pass's capability; its download only for the browser that got the card (its join cookie).
  { route: '/p/:passId/data', fill: { passId: 'pass' }, get: OK },
  { route: '/c/data/:passId', fill: { passId: 'pass' }, get: everyone(to('/p/{pass}/data?download=refused')) },
  // A holder's confirmation link: without a token there is nothing to confirm.
  { route: '/p/confirm-email', get: everyone(404) },

  // Apple's pass web service: Wallet on a device calls it with the pass's token, not a session. The walk runs with
  // Apple Wallet off (no APPLE_PASS_TYPE_ID): every call is 404; apple-web-service.test.ts covers it on.
  {
    route: '/wallet/apple/v1/devices/:deviceId/registrations/:passTypeId/:serialNumber',
    fill: { deviceId: 'pass', passTypeId: 'nowhere', serialNumber: 'pass' },
    get: NOT_ALLOWED,
    post: everyone(404),
  },
  {
    route: '/wallet/apple/v1/devices/:deviceId/registrations/:passTypeId',
    fill: { deviceId: 'pass', passTypeId: 'nowhere' },
    get: everyone(404),
    post: NOT_ALLOWED,
  },
  {
    route: '/wallet/apple/v1/passes/:passTypeId/:serialNumber',
    fill: { passTypeId: 'nowhere', serialNumber: 'pass' },
    get: everyone(404),
    post: NOT_ALLOWED,
  },
  { route: '/wallet/apple/v1/log', get: NOT_ALLOWED, post: everyone(404) },
  // Stripe's events: signed with the endpoint's secret, not a session. The walk runs with paying by card off (no
  // STRIPE_SECRET_KEY): 404; stripe-webhook.test.ts covers it on.
  { route: '/api/stripe/webhook', get: NOT_ALLOWED, post: everyone(404) },

  // A user's profile logo: the user and admins; anyone else 404 (an image address: nobody learns whose logo exists).
  {
    route: '/images/users/:userId/logo',
    fill: { userId: 'userA' },
    get: { guest: 404, ownerA: 'ok', ownerB: 404, admin: 'ok', ...STAFF_REFUSED },
  },
  // Development only (404 in production, tests/integration/auth-pages.test.ts): the mail the app wrote.
  { route: '/dev/mailbox', get: OK },
]
