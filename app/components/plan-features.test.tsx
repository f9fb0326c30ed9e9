import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, test } from 'vitest'
import { PlanFeatures, walletsText, type SharedPlanFeatures } from './plan-features.tsx'

const items = (html: string) => [...html.matchAll(/<li>(.*?)<\/li>/g)].map((match) => match[1])
const shared = (wallets: Partial<SharedPlanFeatures>): SharedPlanFeatures => ({
  locationsMax: 50,
  appleWallet: false,
  googleWallet: false,
  ...wallets,
})

describe('what a plan holds', () => {
  test('the sold limits, the seats, then what every plan has; the wallets set up here and no others', () => {
    const html = renderToStaticMarkup(
      <PlanFeatures
        plan={{ cardLimit: 3, monthlyPushLimit: 12, staffSeats: 5 }}
        shared={shared({ appleWallet: true })}
      />,
    )
    expect(items(html)).toEqual([
      '3 active cards',
      '12 push messages a month',
      '5 staff logins',
      'Up to 50 locations',
      'Automatic messages, not counted in the monthly ones',
      'Apple Wallet passes',
      'Unlimited card holders',
    ])
  })

  test('singular forms, and no wallet line on a deployment without wallets', () => {
    const html = renderToStaticMarkup(
      <PlanFeatures plan={{ cardLimit: 1, monthlyPushLimit: 1, staffSeats: 1 }} shared={shared({})} />,
    )
    expect(items(html).slice(0, 3)).toEqual(['1 active card', '1 push message a month', '1 staff login'])
    expect(html).not.toContain('Wallet')
  })

  test('each combination of wallets in words', () => {
    expect(walletsText(shared({ appleWallet: true, googleWallet: true }))).toBe('Apple Wallet and Google Wallet passes')
    expect(walletsText(shared({ googleWallet: true }))).toBe('Google Wallet passes')
    expect(walletsText(shared({}))).toBeNull()
  })
})
