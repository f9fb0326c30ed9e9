/// <reference types="@maxim_mazurok/gapi.client.walletobjects-v1" />
import { progressOf, rewardLine, schemeOf, stampsOfGoal } from '#app/services/cards/loyalty-scheme.ts'
import { type GoogleCardFields } from '#models/google-wallet.server.ts'

/**
 * What Stampwise sends Google Wallet (docs/product/wallets.md, "Google pass"), typed with Google's published typings of
 * the API (`gapi.client.walletobjects`), so a field Google does not define fails the typecheck (and the tests' fake).
 * A loyalty class per card shows its names, colour, logo and terms; a loyalty object per pass its stamps, the reward,
 * the short code as a QR code and a link to the web pass.
 */
export type LoyaltyClass = gapi.client.walletobjects.LoyaltyClass
export type LoyaltyObject = gapi.client.walletobjects.LoyaltyObject
export type AddMessageRequest = gapi.client.walletobjects.AddMessageRequest

export const googleClassId = (issuerId: string, cardId: string) => `${issuerId}.card-${cardId}`
export const googleObjectId = (issuerId: string, passId: string) => `${issuerId}.pass-${passId}`

/** The card's public logo address (its version in it, so a new logo is a new address Google fetches). */
export const cardLogoAddress = (appUrl: string, card: Pick<GoogleCardFields, 'cardId' | 'cardVersion'>) =>
  `${appUrl}/cards/${card.cardId}/logo.png?v=${Math.round(card.cardVersion).toString(36)}`

export function loyaltyClassFor(card: GoogleCardFields, { issuerId, appUrl }: { issuerId: string; appUrl: string }) {
  const loyaltyClass: LoyaltyClass = {
    id: googleClassId(issuerId, card.cardId),
    issuerName: card.businessName,
    programName: card.title,
    programLogo: {
      sourceUri: { uri: cardLogoAddress(appUrl, card) },
      contentDescription: { defaultValue: { language: 'en-US', value: `${card.businessName} logo` } },
    },
    hexBackgroundColor: card.backgroundColor,
    reviewStatus: 'UNDER_REVIEW',
    // A saved card is the holder's alone, on each of their devices (it carries their short code).
    multipleDevicesAndHoldersAllowedStatus: 'ONE_USER_ALL_DEVICES',
    textModulesData: card.terms.trim() ? [{ id: 'terms', header: 'Terms', body: card.terms }] : [],
  }
  return loyaltyClass
}

/** '{n} of {N}', as the web pass and the Apple pass show the stamps. */
export function loyaltyPointsFor(stamps: number, stampsRequired: number): LoyaltyObject['loyaltyPoints'] {
  return { label: 'Stamps', balance: { string: stampsOfGoal(progressOf(schemeOf({ stampsRequired }), stamps)) } }
}

function rewardModule(card: Pick<GoogleCardFields, 'reward' | 'stampsRequired'>, stamps: number) {
  return [{ id: 'reward', header: 'Reward', body: rewardLine(progressOf(schemeOf(card), stamps)) }]
}

export function loyaltyObjectFor(
  pass: { passId: string; shortCode: string; stamps: number },
  card: GoogleCardFields,
  { issuerId, appUrl }: { issuerId: string; appUrl: string },
) {
  const loyaltyObject: LoyaltyObject = {
    id: googleObjectId(issuerId, pass.passId),
    classId: googleClassId(issuerId, card.cardId),
    state: 'ACTIVE',
    loyaltyPoints: loyaltyPointsFor(pass.stamps, card.stampsRequired),
    barcode: { type: 'QR_CODE', value: pass.shortCode, alternateText: pass.shortCode },
    textModulesData: rewardModule(card, pass.stamps),
    linksModuleData: { uris: [{ id: 'pass', uri: `${appUrl}/p/${pass.passId}`, description: 'Your card online' }] },
  }
  return loyaltyObject
}

/** The PATCH after a stamp, undo or redemption; `notify` when the reward was just earned (within Google's limit). */
export function loyaltyObjectStampsPatch(stamps: number, card: GoogleCardFields, notify: boolean) {
  const patch: LoyaltyObject = {
    loyaltyPoints: loyaltyPointsFor(stamps, card.stampsRequired),
    textModulesData: rewardModule(card, stamps),
    ...(notify ? { notifyPreference: 'NOTIFY_ON_UPDATE' } : {}),
  }
  return patch
}

/** A message's id at Google is its notification's: sent twice after a crash, it is the same message. */
export const googleMessageId = (notificationId: string) => `message-${notificationId}`

/** A message to the holder: TEXT_AND_NOTIFY within Google's limit, TEXT (shown, not notified) beyond it. */
export function addMessageRequest(
  message: { id: string; title: string; body: string },
  notify: boolean,
): AddMessageRequest {
  return {
    message: {
      id: message.id,
      header: message.title,
      body: message.body,
      messageType: notify ? 'TEXT_AND_NOTIFY' : 'TEXT',
    },
  }
}

/**
 * The PATCH that leaves an object only the given messages (the newest it was sent), as plain ones: Google keeps at
 * most 10 per object and removes none, so a full object is trimmed before the next message is added.
 */
export function keptMessagesPatch(messages: { notificationId: string; title: string; body: string }[]): LoyaltyObject {
  return {
    messages: messages.map((message) => ({
      id: googleMessageId(message.notificationId),
      header: message.title,
      body: message.body,
      messageType: 'TEXT',
    })),
  }
}

export const INACTIVE_PATCH: LoyaltyObject = { state: 'INACTIVE' }
