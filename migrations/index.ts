import * as coreSchema from './0001-core-schema.ts'
import * as seedTariffsAndTemplates from './0002-seed-tariffs-and-templates.ts'
import * as oauthStates from './0003-oauth-states.ts'
import * as plansNoticesStamps from './0004-plans-notices-stamps.ts'
import * as pushDelivery from './0005-push-delivery.ts'
import * as adminSearch from './0006-admin-search.ts'
import * as pushHardening from './0007-push-hardening.ts'
import * as stampHistoryOutlivesPass from './0008-stamp-history-outlives-pass.ts'
import * as premadeCards from './0009-premade-cards.ts'
import * as appleWallet from './0010-apple-wallet.ts'
import * as googleWallet from './0011-google-wallet.ts'
import * as insights from './0012-insights.ts'
import * as automations from './0013-automations.ts'
import * as staffLocationsRules from './0014-staff-locations-rules.ts'
import * as removedStaffAndPauses from './0015-removed-staff-and-pauses.ts'
import * as invitationNotices from './0016-invitation-notices.ts'
import * as walletLimits from './0018-wallet-limits.ts'
import * as passMessages from './0019-pass-messages.ts'
import * as insightRollups from './0020-insight-rollups.ts'
import * as walletCountsMoveVersion from './0021-wallet-counts-move-version.ts'
import * as insightJoins from './0022-insight-joins.ts'
import * as stripeSubscriptions from './0023-stripe-subscriptions.ts'
import * as holderDetails from './0024-holder-details.ts'

/**
 * Every migration, in order. Listed by hand (not found by a file glob) so that the same list works under tsx,
 * vitest and a bundler alike; a test fails when a file in this folder is missing here.
 */
export const migrations = [
  { name: '0001-core-schema', ...coreSchema },
  { name: '0002-seed-tariffs-and-templates', ...seedTariffsAndTemplates },
  { name: '0003-oauth-states', ...oauthStates },
  { name: '0004-plans-notices-stamps', ...plansNoticesStamps },
  { name: '0005-push-delivery', ...pushDelivery },
  { name: '0006-admin-search', ...adminSearch },
  { name: '0007-push-hardening', ...pushHardening },
  { name: '0008-stamp-history-outlives-pass', ...stampHistoryOutlivesPass },
  { name: '0009-premade-cards', ...premadeCards },
  { name: '0010-apple-wallet', ...appleWallet },
  { name: '0011-google-wallet', ...googleWallet },
  { name: '0012-insights', ...insights },
  { name: '0013-automations', ...automations },
  { name: '0014-staff-locations-rules', ...staffLocationsRules },
  { name: '0015-removed-staff-and-pauses', ...removedStaffAndPauses },
  { name: '0016-invitation-notices', ...invitationNotices },
  { name: '0018-wallet-limits', ...walletLimits },
  { name: '0019-pass-messages', ...passMessages },
  { name: '0020-insight-rollups', ...insightRollups },
  { name: '0021-wallet-counts-move-version', ...walletCountsMoveVersion },
  { name: '0022-insight-joins', ...insightJoins },
  { name: '0023-stripe-subscriptions', ...stripeSubscriptions },
  { name: '0024-holder-details', ...holderDetails },
]
