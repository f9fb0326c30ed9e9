import { whileNextObjectInsertFails } from '#tests/support/google-wallet-control.ts'
import { type PageRecords } from '#tests/support/page-records.ts'

/**
 * Every page of the app, as the one who opens it, for accessibility.spec.ts. `route` is the build's address of the
 * page (the spec fails when a page of the build has no row here, or a row names no page of the build); a route may
 * have several rows for its states (a form with errors, a page without its token, an error page).
 */
export type Visitor = 'guest' | 'owner' | 'admin' | 'staff'
export type PageRow = {
  route: string
  as: Visitor
  path: (records: PageRecords) => string
  /** The expected HTTP status (200 unless said). */
  status?: number
  /** What this row shows, when the route has several. */
  state?: string
  /** Wraps the page's load, for a state that holds only while it loads (Google failing its next answer). */
  during?: <T>(load: () => Promise<T>) => Promise<T>
}

const guest = (route: string, path = route, extra: Partial<PageRow> = {}): PageRow => ({
  route,
  as: 'guest',
  path: () => path,
  ...extra,
})
const owner = (route: string, path: PageRow['path'] = () => route, extra: Partial<PageRow> = {}): PageRow => ({
  route,
  as: 'owner',
  path,
  ...extra,
})
const admin = (route: string, path: PageRow['path'] = () => route, extra: Partial<PageRow> = {}): PageRow => ({
  route,
  as: 'admin',
  path,
  ...extra,
})
const staff = (route: string, path: PageRow['path'] = () => route, extra: Partial<PageRow> = {}): PageRow => ({
  route,
  as: 'staff',
  path,
  ...extra,
})
const step = (name: string) => owner(`/${name}`, (r) => `/${name}?cardId=${r.card}`)
const cardPage = (tail: string) => owner(`/account/:cardId${tail}`, (r) => `/account/${r.card}${tail}`)
/** A card id nobody has: the layouts' error pages (the 404 inside their chrome). */
const NO_CARD = '00000000-0000-4000-8000-000000000000'

export const PAGES: PageRow[] = [
  // Public site.
  guest('/'),
  guest('/about'),
  guest('/blog'),
  guest('/blog/:slug', '/blog/paper-vs-digital-stamp-cards'),
  guest('/contacts'),
  guest('/privacy-policy'),
  guest('/terms'),
  guest('/feedback'),
  guest('/*', '/no-such-page', { status: 404, state: 'not-found page' }),
  guest('/dev/mailbox'),

  // Sign-in and recovery.
  guest('/login'),
  guest('/sign-up'),
  guest('/forgot-password'),
  guest('/reset-password-link'),
  guest('/password-updated'),
  guest('/verify-email', '/verify-email?email=owner%40example.com'),
  guest('/change-password', '/change-password', { status: 400, state: 'without a token' }),
  {
    route: '/change-password',
    as: 'guest',
    path: (r) => `/change-password?token=${r.resetToken}`,
    state: 'with a valid token',
  },
  guest('/join-team', '/join-team', { status: 400, state: 'without a token' }),
  guest('/decline-invitation', '/decline-invitation', { status: 400, state: 'without a token' }),
  guest('/decline-invitation', '/decline-invitation?declined', { state: 'declined' }),
  guest('/email-confirmed'),
  owner('/logout'),

  // Card onboarding.
  owner('/main', (r) => `/main?cardId=${r.card}`),
  step('card_reward'),
  step('card_ready'),
  step('your_qr_code'),
  step('easy_way'),
  step('place_your_qr'),
  step('win_win'),
  owner('/premaid_card'),
  owner('/info-without-fb'),
  owner('/card_reward', () => `/card_reward?cardId=${NO_CARD}`, {
    status: 404,
    state: 'unknown card: 404 under the onboarding bar',
  }),

  // The owner's account.
  owner('/account'),
  owner('/account/profile'),
  owner('/account/plan'),
  owner('/account/tariffs'),
  owner('/account/team'),
  owner('/account/contact-us'),
  owner('/account/help'),
  owner('/account/limits'),
  owner('/account/limits_trial'),
  owner('/account/notifications'),
  // Locations (issue 20).
  owner('/account/locations'),
  owner('/account/qr_code/:cardId', (r) => `/account/qr_code/${r.card}`),
  cardPage(''),
  owner('/account/:cardId', () => `/account/${NO_CARD}`, {
    status: 404,
    state: 'unknown card: 404 in the account chrome',
  }),
  cardPage('/poster'),
  cardPage('/qr_code'),
  cardPage('/scan'),
  cardPage('/push_notification'),
  cardPage('/push_notification/create'),
  cardPage('/push_notification/history'),
  // Automatic messages (issue 19): the settings page, and the history's automatic days at a day that is not one.
  cardPage('/automations'),
  cardPage('/rules'),
  cardPage('/holder-details'),
  cardPage('/edit'),
  owner(
    '/account/:cardId/push_notification/history',
    (r) => `/account/${r.card}/push_notification/history?until=soon`,
    {
      status: 400,
      state: 'automatic days at a day that is not one',
    },
  ),
  // Holders (issue 18): the list, a holder's history, and a query the form could not send (400 with the form).
  cardPage('/holders'),
  owner('/account/:cardId/holders', (r) => `/account/${r.card}/holders?filter=everyone`, {
    status: 400,
    state: 'a filter not in the list',
  }),
  owner('/account/:cardId/holders/:passId', (r) => `/account/${r.card}/holders/${r.pass}`),
  // The activity (issue 20), and a filter the form could not send (400 with the form).
  owner('/account/activity'),
  owner('/account/activity', () => '/account/activity?person=nobody', {
    status: 400,
    state: 'a person not in the list',
  }),
  cardPage('/push_notification/template'),
  owner(
    '/account/:cardId/push_notification/template/:templateId/create',
    (r) => `/account/${r.card}/push_notification/template/${r.template}/create`,
  ),
  owner(
    '/account/:cardId/push_notification/confirm/:notificationId',
    (r) => `/account/${r.card}/push_notification/confirm/${r.draft}`,
  ),
  // Scheduled messages (issue 19), and the confirm page asked for an audience not in its list (400 with the page).
  cardPage('/push_notification/scheduled'),
  owner(
    '/account/:cardId/push_notification/confirm/:notificationId',
    (r) => `/account/${r.card}/push_notification/confirm/${r.draft}?audience=everyone`,
    { status: 400, state: 'an audience not in the list' },
  ),
  owner('/admin', () => '/admin', { status: 403, state: 'refused to an owner' }),

  // Holders: the join page and the pass.
  guest('/c/:slug', undefined, { path: (r) => `/c/${r.slug}` }),
  guest('/p/:passId', undefined, { path: (r) => `/p/${r.pass}` }),
  // What a holder gives to find the card again (issue 34), and a confirmation link without its token.
  guest('/p/:passId/details', undefined, { path: (r) => `/p/${r.pass}/details` }),
  guest('/p/:passId/data', undefined, { path: (r) => `/p/${r.pass}/data` }),
  guest('/p/:passId/data', undefined, {
    path: (r) => `/p/${r.pass}/data?download=refused`,
    status: 403,
    state: 'the download asked from another browser',
  }),
  guest('/p/confirm-email', undefined, { path: () => '/p/confirm-email', status: 404, state: 'no token' }),
  // 'Save to Google Wallet' is a redirect to Google; its one page is the one saying Google cannot be reached.
  guest('/p/:passId/google-wallet', undefined, {
    path: (r) => `/p/${r.pass}/google-wallet`,
    status: 503,
    state: 'Google Wallet unreachable',
    during: whileNextObjectInsertFails,
  }),
  // Removing a card from a device that did not get it: the refusal page.
  guest('/c/remove/:passId', undefined, { path: (r) => `/c/remove/${r.pass}`, status: 403, state: 'another device' }),

  // Admin area.
  // The staff counter (issue 20): the cards, a card's scan page (with its location choice), the password.
  staff('/staff'),
  staff('/staff/:cardId/scan', (r) => `/staff/${r.card}/scan`),
  staff('/staff/password'),
  staff('/account/:cardId', (r) => `/account/${r.card}`, { status: 404, state: 'an owner page, for staff' }),
  admin('/admin'),
  admin('/admin/feedback'),
  admin('/admin/users/new'),
  admin('/admin/users/:userId', (r) => `/admin/users/${r.owner.id}`),
  admin('/admin/users/:userId/cards/:cardId/edit', (r) => `/admin/users/${r.owner.id}/cards/${r.card}/edit`),
  admin('/admin/users/:userId/cards/:cardId/edit', (r) => `/admin/users/${r.owner.id}/cards/${NO_CARD}/edit`, {
    status: 404,
    state: 'unknown card: 404 in the admin chrome',
  }),
]
