import { getCountries, parsePhoneNumberWithError, type CountryCode } from 'libphonenumber-js/max'

/**
 * Holders' phone numbers, kept in E.164 (DECISIONS.md "Holders who can be found again"): a number typed without a
 * prefix is read as one of the card's country, one typed with '+' or '00' as that country's. libphonenumber-js (the
 * port of Google's libphonenumber) knows each country's lengths and ranges; its full metadata ('max') tells a real
 * number from one of the right length, and stays on the server.
 */
export const PHONE_COUNTRIES: readonly string[] = getCountries()

const countryNames = new Intl.DisplayNames(['en'], { type: 'region' })

/** The countries a card may choose for its phone numbers, by name. */
export const phoneCountryOptions = () =>
  PHONE_COUNTRIES.map((code) => [code, countryNames.of(code) ?? code] as const).sort((a, b) =>
    a[1].localeCompare(b[1], 'en'),
  )

/** The number in E.164, or null when it is not a number of its country (or of `country`, given without a prefix). */
export function normalizePhone(value: string, country: string): string | null {
  const typed = value.trim().replace(/^00/, '+')
  if (!/^\+?[\d\s().\-/]{4,40}$/.test(typed)) return null
  try {
    const phone = parsePhoneNumberWithError(typed, { defaultCountry: country as CountryCode })
    return phone.isValid() ? phone.number : null
  } catch {
    return null
  }
}

/** The number as people of its country write it ('+49 30 901820'), for pages. */
export function phoneText(e164: string): string {
  try {
    return parsePhoneNumberWithError(e164).formatInternational()
  } catch {
    return e164
  }
}
