import crypto from 'node:crypto'
import { type AppleWalletConfig } from '#app/server/apple-wallet-config.server.ts'
import { loadOnFirstUse } from '#app/server/load-on-first-use.server.ts'
import { progressOf, rewardLine, schemeOf, stampsOfGoal } from '#app/services/cards/loyalty-scheme.ts'
import { APPLE_PASS_LOCATIONS_MAX } from '#app/utils/location-schemas.ts'
import { applePassImages } from './apple-pass-images.server.ts'
import { storedZip } from './stored-zip.server.ts'

/**
 * A holder's card as a signed Apple Wallet storeCard (.pkpass), exactly as docs/product/wallets.md ("Apple pass") lays
 * it out: outside clients (Wallet itself) rely on every key here.
 */

export type ApplePassContent = {
  passId: string
  shortCode: string
  stamps: number
  stampsRequired: number
  card: {
    id: string
    /** The design's version: images are kept per card and version. */
    version: number
    title: string
    businessName: string
    backgroundColor: string
    textColor: string
    stampIcon: string
    reward: string
    terms: string
    stampPushOn: boolean
    logo: { data: Buffer; contentType: string } | null
  }
  latestMessage: string | null
  /** Where Wallet brings the pass to the lock screen (at most APPLE_PASS_LOCATIONS_MAX are used). */
  locations: { latitude: number; longitude: number }[]
  voided: boolean
}

export type ApplePassOptions = { appUrl: string; authenticationToken: string }

/** '#rrggbb' (or '#rgb') as Wallet wants colours: 'rgb(r, g, b)'. */
export function walletColor(hex: string) {
  const digits = hex.replace(/^#/, '')
  const full = digits.length === 3 ? [...digits].map((digit) => digit + digit).join('') : digits
  if (!/^[0-9a-f]{6}$/i.test(full)) throw new Error(`Not a #rrggbb colour: ${hex}`)
  const [r, g, b] = [0, 2, 4].map((at) => parseInt(full.slice(at, at + 2), 16))
  return `rgb(${r}, ${g}, ${b})`
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"]/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[character]!)

/** What the back's message field says before the business sent any message. */
export const noMessageYet = (organizationName: string) => `Messages from ${organizationName} will show here.`

/** The name Wallet shows: the business, else the card's title (Wallet refuses an empty organizationName). */
export const passOrganizationName = (card: Pick<ApplePassContent['card'], 'businessName' | 'title'>) =>
  card.businessName.trim() || card.title.trim() || 'Stampwise'

/**
 * The fields of the storeCard. Empty texts are left out (Wallet shows an empty field as a bare label), except the
 * message: Wallet alerts only when a field it already has changes, so the field is there from the start.
 */
export function storeCardFields(content: ApplePassContent, appUrl: string) {
  const { card, stamps, stampsRequired } = content
  const progress = progressOf(schemeOf({ stampsRequired, reward: card.reward.trim() }), stamps)
  const webAddress = `${appUrl}/p/${content.passId}`
  return {
    primaryFields: [
      {
        key: 'stamps',
        label: 'Stamps',
        value: stampsOfGoal(progress),
        ...(card.stampPushOn ? { changeMessage: 'Stamps: %@' } : {}),
      },
    ],
    secondaryFields: progress.nextReward ? [{ key: 'reward', label: 'Reward', value: rewardLine(progress) }] : [],
    backFields: [
      ...(card.terms.trim() ? [{ key: 'terms', label: 'Terms', value: card.terms.trim() }] : []),
      {
        key: 'message',
        label: 'Message',
        value: content.latestMessage?.trim() || noMessageYet(passOrganizationName(card)),
        changeMessage: '%@',
      },
      {
        key: 'web',
        label: 'Your card online',
        value: webAddress,
        attributedValue: `<a href="${escapeHtml(webAddress)}">${escapeHtml(webAddress)}</a>`,
      },
    ],
  }
}

/** What the lock screen says near one of the business's locations. */
export const nearbyText = (organizationName: string) => `${organizationName} is nearby — show your card`

/** pass.json for the content (without the images and the signature). */
export function applePassJson(content: ApplePassContent, config: AppleWalletConfig, options: ApplePassOptions) {
  const { card } = content
  // Wallet refuses empty texts here; a card in the middle of onboarding may not have both yet.
  const organizationName = passOrganizationName(card)
  const locations = content.locations.slice(0, APPLE_PASS_LOCATIONS_MAX).map(({ latitude, longitude }) => ({
    latitude,
    longitude,
    relevantText: nearbyText(organizationName),
  }))
  return {
    formatVersion: 1,
    passTypeIdentifier: config.passTypeId,
    teamIdentifier: config.teamId,
    serialNumber: content.passId,
    organizationName,
    description: card.title.trim() || card.businessName.trim() || 'Stamp card',
    backgroundColor: walletColor(card.backgroundColor),
    foregroundColor: walletColor(card.textColor),
    labelColor: walletColor(card.textColor),
    // The business's name beside the logo on the front (organizationName shows only in notifications).
    logoText: organizationName,
    // A pass is one holder's stamps: Wallet's share button would hand them to someone else.
    sharingProhibited: true,
    barcodes: [
      {
        format: 'PKBarcodeFormatQR',
        message: content.shortCode,
        messageEncoding: 'iso-8859-1',
        altText: content.shortCode,
      },
    ],
    webServiceURL: `${options.appUrl}/wallet/apple`,
    authenticationToken: options.authenticationToken,
    ...(content.voided ? { voided: true } : {}),
    ...(locations.length ? { locations } : {}),
    storeCard: storeCardFields(content, options.appUrl),
  }
}

// The signing library would otherwise decrypt a passphrase-protected key (PBKDF2 in JavaScript) at every build.
const signerKeys = new WeakMap<AppleWalletConfig, string>()

function signerKey(config: AppleWalletConfig) {
  let pem = signerKeys.get(config)
  if (!pem) {
    const key = crypto.createPrivateKey({ key: config.keyPem, passphrase: config.keyPassphrase })
    pem = key.export({ type: 'pkcs1', format: 'pem' }).toString()
    signerKeys.set(config, pem)
  }
  return pem
}

/** passkit-generator, loaded by the first pass signed: a server without Apple Wallet never needs it. */
const loadPasskit = loadOnFirstUse(() => import('passkit-generator'))

/** The signed .pkpass (a zip of pass.json, the images, manifest.json and its PKCS#7 signature). */
export async function buildApplePass(
  content: ApplePassContent,
  config: AppleWalletConfig,
  options: ApplePassOptions,
): Promise<Buffer> {
  const images = await applePassImages(content.card, content.stamps, content.stampsRequired)
  const passJson = applePassJson(content, config, options)
  const { PKPass } = await loadPasskit()
  const pass = new PKPass(
    { ...images, 'pass.json': Buffer.from(JSON.stringify(passJson)) },
    { wwdr: config.wwdrPem, signerCert: config.certPem, signerKey: signerKey(config) },
  )
  // passkit-generator drops a pass.json or a field it finds invalid with only a console.warn: fail loudly instead.
  const { primaryFields, secondaryFields, backFields } = passJson.storeCard
  const refused =
    pass.type !== 'storeCard' ||
    (pass.props.locations?.length ?? 0) !== (passJson.locations?.length ?? 0) ||
    pass.primaryFields.length + pass.secondaryFields.length + pass.backFields.length !==
      primaryFields.length + secondaryFields.length + backFields.length
  if (refused) throw new Error(`passkit-generator refused the pass.json of pass ${content.passId}`)
  return storedZip(pass.getAsRaw())
}
