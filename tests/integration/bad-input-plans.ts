/**
 * What the bad-input fuzz (bad-input.test.ts) posts to each route with an action: the fields its form or JSON call
 * reads, the `intent` values it tells actions apart by, and a valid body to start from (`{card}` and the like are
 * filled with owner A's records), so that hostile values also reach the checks behind the first validation and
 * the database. The role comes from the authorization table (authorization-table.ts); a route of the build with an
 * action and no plan here, or a plan without its route, fails the fuzz.
 *
 * `methods`: besides POST (the pass's push subscription also takes DELETE). `valid` bases are chosen so that they
 * do not destroy what later routes need (owner A's card, session and plan).
 */
export type FuzzPlan = {
  fields: string[]
  intents?: string[]
  base?: Record<string, string>
  methods?: ('POST' | 'DELETE' | 'PUT' | 'PATCH')[]
  /**
   * The route's credential is one no role of the walk holds (a holder's device cookie): the fuzz posts as a guest
   * and checks that every hostile body is refused cleanly, changing nothing.
   */
  refusedToEveryone?: true
}

const DESIGN_FIELDS = ['businessName', 'title', 'stampsRequired', 'backgroundColor', 'textColor', 'stampIcon']
const DESIGN = {
  businessName: 'Corner Coffee',
  title: 'Coffee card',
  stampsRequired: '8',
  backgroundColor: '#1f3a5f',
  textColor: '#ffffff',
  stampIcon: 'coffee',
}
const REWARD = { reward: 'A free coffee', terms: 'One a day' }
const NEW_PASSWORD = 'Stamp.card1'
const TOKEN = 'a'.repeat(43)
const HOLDER_DETAIL_FIELDS = ['name', 'email', 'phone', 'birthDay', 'birthMonth']
const HOLDER_DETAILS = {
  name: 'Lena',
  email: 'lena@example.com',
  phone: '06 12 34 56 78',
  birthDay: '29',
  birthMonth: '2',
}
/** GET-only JSON calls: their action answers every method 405. */
const GET_ONLY: FuzzPlan = { fields: [] }
/** A Continue button: the body carries nothing. */
const CONTINUE: FuzzPlan = { fields: [] }

export const FUZZ_PLANS: Record<string, FuzzPlan> = {
  '/contacts': {
    fields: ['name', 'email', 'subject', 'message', 'website'],
    base: { name: 'Ann', email: 'ann@example.com', subject: 'Hello', message: 'Hi there' },
  },
  '/feedback': {
    fields: ['email', 'message', 'rating', 'website'],
    base: { email: 'ann@example.com', message: 'Nice', rating: '5' },
  },
  '/login': {
    fields: ['email', 'password', 'redirectTo'],
    base: { email: 'nobody@example.com', password: NEW_PASSWORD, redirectTo: '/account' },
  },
  '/sign-up': {
    fields: ['email', 'password', 'confirmPassword', 'website', 'timeZone'],
    base: { email: 'fuzz@example.com', password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD },
  },
  '/forgot-password': { fields: ['email', 'website'], base: { email: 'nobody@example.com' } },
  '/verify-email': { fields: ['email'], base: { email: 'nobody@example.com' } },
  '/change-password': {
    fields: ['password', 'confirmPassword', 'token'],
    base: { password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD, token: TOKEN },
  },
  '/join-team': {
    fields: ['password', 'confirmPassword', 'token'],
    base: { password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD, token: TOKEN },
  },
  '/decline-invitation': { fields: ['token'], base: { token: TOKEN } },
  '/logout': { fields: [] },
  '/auth_apple': {
    fields: ['code', 'state', 'user', 'error'],
    base: { code: 'code', state: 'state', user: '{"name":{"firstName":"Ann"}}' },
  },

  '/main': { fields: [...DESIGN_FIELDS, 'logo', 'removeLogo'], base: DESIGN },
  '/card_reward': { fields: ['reward', 'terms'], base: REWARD },
  '/card_ready': CONTINUE,
  '/your_qr_code': CONTINUE,
  '/easy_way': CONTINUE,
  '/place_your_qr': CONTINUE,
  '/win_win': CONTINUE,

  '/account/:cardId': {
    fields: ['intent', 'autoPush', 'confirm'],
    intents: ['archive', 'restore', 'auto-push', 'delete'],
    base: { intent: 'auto-push', autoPush: 'on' },
  },
  '/account/:cardId/scan': {
    fields: ['intent', 'code', 'count', 'passId', 'locationId', 'override'],
    intents: ['stamp', 'undo', 'redeem'],
    base: { intent: 'stamp', code: 'AUTHZ234', count: '1' },
  },
  // The staff counter (issue 20): the same scan forms; the location form; the password (a wrong current one, so
  // the fuzz never changes it).
  '/staff/:cardId/scan': {
    fields: ['intent', 'code', 'count', 'passId', 'locationId', 'override'],
    intents: ['stamp', 'undo', 'redeem'],
    base: { intent: 'stamp', code: 'AUTHZ234', count: '1' },
  },
  '/staff': { fields: ['intent', 'locationId'], intents: ['location'], base: { intent: 'location', locationId: '' } },
  '/staff/password': {
    fields: ['currentPassword', 'password', 'confirmPassword'],
    base: { currentPassword: 'not the password', password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD },
  },
  '/account/:cardId/push_notification/create': {
    fields: ['title', 'body', 'link', 'saveAsTemplate', 'draft'],
    base: { title: 'Happy hour', body: 'Two for one', link: 'https://example.com/offer' },
  },
  '/account/:cardId/push_notification/template/:templateId/create': {
    fields: ['title', 'body', 'link', 'saveAsTemplate', 'draft'],
    base: { title: 'Happy hour', body: 'Two for one', saveAsTemplate: 'on' },
  },
  // Automatic messages (issue 19): one form per message kind, the stamp push, quiet hours and caps.
  '/account/:cardId/automations': {
    fields: [
      'intent',
      'enabled',
      'title',
      'body',
      'days',
      'stampPush',
      'quietHours',
      'quietStart',
      'quietEnd',
      'dailyCap',
      'weeklyCap',
    ],
    intents: ['welcome', 'one_to_go', 'reward_earned', 'reward_waiting', 'we_miss_you', 'stamp-push', 'delivery-rules'],
    base: { intent: 'we_miss_you', enabled: 'on', title: 'We miss you', body: 'Come back soon', days: '30' },
  },
  // Stamping rules (issue 20): most stamps a scan, the pause (a preset or custom) and the daily cap.
  '/account/:cardId/holders/:passId': {
    fields: ['intent', ...HOLDER_DETAIL_FIELDS],
    intents: ['correct', 'erase'],
    base: { intent: 'correct', ...HOLDER_DETAILS },
  },
  '/account/:cardId/holder-details': {
    fields: ['fields', 'when', 'afterStamps', 'privacyNote', 'phoneCountry'],
    base: { fields: 'email', when: 'joining', afterStamps: '2', privacyNote: 'We keep it safe.', phoneCountry: 'FR' },
  },
  '/account/:cardId/rules': {
    fields: ['maxPerScan', 'pause', 'customAmount', 'customUnit', 'dailyCap'],
    base: { maxPerScan: '5', pause: 'custom', customAmount: '2', customUnit: 'hours', dailyCap: '3' },
  },
  // Send and Schedule (issue 19): the audience and the local time. No valid time in the base: the draft stays one.
  '/account/:cardId/push_notification/confirm/:notificationId': {
    fields: ['intent', 'audience', 'when'],
    intents: ['send', 'schedule'],
    base: { intent: 'schedule', audience: 'inactive' },
  },
  // Cancel of a scheduled message (issue 19): owner A's draft is not scheduled, so the base changes nothing.
  '/account/:cardId/push_notification/scheduled': {
    fields: ['intent', 'id'],
    intents: ['cancel'],
    base: { intent: 'cancel', id: '{notification}' },
  },
  '/account/contact-us': {
    fields: ['subject', 'message', 'intent', 'redirectTo'],
    intents: ['inline'],
    base: { subject: 'Hello', message: 'Hi there' },
  },
  // Locations (issue 20): add, edit and remove. The base adds one (owner A may have 50; a refused body adds none).
  '/account/locations': {
    fields: ['intent', 'locationId', 'name', 'address', 'latitude', 'longitude', 'staffIds'],
    intents: ['add', 'edit', 'remove'],
    base: { intent: 'add', name: 'Main Street', address: '1 Main Street', latitude: '38.7223', longitude: '-9.1393' },
  },
  '/account/notifications': {
    fields: ['intent', 'noticeId', 'redirectTo'],
    intents: ['mark-all-read', 'mark-read'],
    base: { intent: 'mark-read', noticeId: '{card}' },
  },
  // No `understood` box in the base: a cancelled trial would end owner A's access for the routes after it.
  '/account/plan': { fields: ['intent', 'understood'], intents: ['cancel', 'billing'], base: { intent: 'cancel' } },
  '/account/profile': {
    fields: ['intent', 'logo', 'email', 'password', 'currentPassword', 'confirmPassword', 'confirm', 'timeZone'],
    intents: ['logo', 'remove-logo', 'email', 'password', 'time-zone', 'delete'],
    base: {
      intent: 'password',
      currentPassword: 'not the password',
      password: NEW_PASSWORD,
      confirmPassword: NEW_PASSWORD,
    },
  },
  '/account/tariffs': { fields: ['tier', 'periodMonths', 'method'], base: { tier: '1', periodMonths: '1' } },
  // Invites owner A's staff until the trial's 2 seats are taken (then 409 with the upgrade path); resend and remove
  // name a member by id (anyone else's, or nobody's: 404).
  '/account/team': {
    fields: ['intent', 'name', 'email', 'staffId'],
    intents: ['invite', 'resend', 'remove'],
    base: { intent: 'invite', name: 'Anna', email: 'fuzz-staff@example.com' },
  },

  '/admin/feedback': {
    fields: ['intent', 'messageId'],
    intents: ['handle', 'reopen'],
    base: { intent: 'handle', messageId: '{card}' },
  },
  '/admin/users/new': {
    fields: ['email', ...DESIGN_FIELDS, 'reward', 'terms', 'confirm'],
    base: { email: 'premade@example.com', ...DESIGN, ...REWARD, confirm: 'on' },
  },
  // Without `confirm`: a disabled owner A would answer nothing but the sign-in page afterwards.
  '/admin/users/:userId': {
    fields: ['intent', 'invoiceId', 'tier', 'periodMonths', 'days', 'messages'],
    intents: [
      'confirm-payment',
      'change-plan',
      'extend-trial',
      'grant-quota',
      'end-subscription',
      'resend-confirmation',
      'disable',
      'enable',
    ],
    base: { intent: 'grant-quota', messages: '5' },
  },
  // The owner's edit of a published card (issue 30): the admin's form, without the audit.
  '/account/:cardId/edit': {
    fields: [...DESIGN_FIELDS, 'reward', 'terms', 'logo', 'removeLogo'],
    base: { ...DESIGN, ...REWARD },
  },
  '/admin/users/:userId/cards/:cardId/edit': {
    fields: [...DESIGN_FIELDS, 'reward', 'terms', 'logo', 'removeLogo'],
    base: { ...DESIGN, ...REWARD },
  },

  '/api/auth/me': GET_ONLY,
  '/api/auth/login': { fields: ['email', 'password'], base: { email: 'nobody@example.com', password: NEW_PASSWORD } },
  '/api/auth/signup': {
    fields: ['email', 'password', 'confirmPassword', 'timeZone'],
    base: { email: 'fuzz-api@example.com', password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD },
  },
  '/api/auth/logout': { fields: [] },
  '/api/auth/forgot-password': { fields: ['email'], base: { email: 'nobody@example.com' } },
  '/api/auth/change-password': {
    fields: ['password', 'confirmPassword', 'token'],
    base: { password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD, token: TOKEN },
  },
  '/api/auth/verify-email': { fields: ['email'], base: { email: 'nobody@example.com' } },
  '/api/auth/verify-token': { fields: ['token'], base: { token: TOKEN } },
  '/api/auth/verify-change-password-token': { fields: ['token'], base: { token: TOKEN } },
  '/api/account/user_data': GET_ONLY,
  '/api/account/user-cards': GET_ONLY,
  '/api/account/plan': GET_ONLY,
  '/api/account/feedback': { fields: ['subject', 'message'], base: { subject: 'Hello', message: 'Hi there' } },
  '/api/account/cards/:id': GET_ONLY,
  '/api/account/qr_code/:cardId': GET_ONLY,
  // Deletes a card made for each request (the route's `fresh: 'card'`).
  '/api/account/delete/:id': { fields: [] },
  '/api/account/profile/delete/:id': { fields: ['confirm'], base: { confirm: 'someone-else@example.com' } },
  '/api/account/profile/update/email/:userId': {
    fields: ['email', 'password'],
    base: { email: 'new-address@example.com', password: 'not the password' },
  },
  '/api/account/:cardId/push_notification/template-api': GET_ONLY,
  '/api/account/:cardId/push_notification/confirm/:notificationId/data': GET_ONLY,
  '/api/onboarding/total-cards': GET_ONLY,
  '/api/onboarding/card-ready': GET_ONLY,
  '/api/onboarding/qr-code': GET_ONLY,
  '/api/onboarding/card-constructor': { fields: [...DESIGN_FIELDS, 'cardId'], base: { ...DESIGN, cardId: '{card}' } },
  '/api/onboarding/card-reward': { fields: ['cardId', 'reward', 'terms'], base: { cardId: '{card}', ...REWARD } },

  // Joining, with the optional holder details the walk's card asks for (issue 34).
  '/c/:slug': { fields: ['website', ...HOLDER_DETAIL_FIELDS] },
  '/p/:passId/details': { fields: HOLDER_DETAIL_FIELDS, base: HOLDER_DETAILS },
  // Removing a card needs the join cookie of the device that got it (integration test: holder-pass.test.ts).
  '/c/remove/:passId': { fields: [], refusedToEveryone: true },
  '/p/:passId/push-subscription': {
    fields: ['endpoint', 'keys'],
    base: { endpoint: 'https://fcm.googleapis.com/fcm/send/abc' },
    methods: ['POST', 'DELETE'],
  },

  // Apple's pass web service: the walk runs with Apple Wallet off, so nobody may call it (404); hostile bodies with
  // it on and the pass's token: apple-web-service.test.ts.
  '/wallet/apple/v1/devices/:deviceId/registrations/:passTypeId/:serialNumber': {
    fields: ['pushToken'],
    base: { pushToken: 'ab12' },
    methods: ['POST', 'DELETE'],
    refusedToEveryone: true,
  },
  '/wallet/apple/v1/devices/:deviceId/registrations/:passTypeId': GET_ONLY,
  '/wallet/apple/v1/passes/:passTypeId/:serialNumber': GET_ONLY,
  '/wallet/apple/v1/log': { fields: ['logs'], base: { logs: 'a line' }, refusedToEveryone: true },
  // Stripe's events: the walk runs with paying by card off (404 to every body); forged, expired and oversized events
  // with it on: stripe-webhook.test.ts.
  '/api/stripe/webhook': { fields: ['id', 'type', 'data'], refusedToEveryone: true },
}
