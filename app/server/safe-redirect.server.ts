import { getEnv } from './env.server.ts'

/**
 * `redirectTo` (login, social sign-in, notifications, contact-us) is followed only to the app's own pages
 * (docs/product/hardening.md, "Redirects"). Checking the string's start is not enough:
 * browsers drop tabs and newlines from an address and read a backslash as a slash, so `/\t/evil.example` and
 * `/\evil.example` both become `//evil.example`, another site. The value is refused when it holds a control
 * character, whitespace or a backslash, and is otherwise resolved against APP_URL the way a browser would:
 * only a result on APP_URL's origin is kept, as a path (never `//…`, which a browser reads as another host).
 */
const FORBIDDEN = /[\p{Cc}\s\\]/u

/** The same-origin path `to` leads to, or null. Exported for its unit test; the app calls safeRedirectPath. */
export function ownPathOrNull(to: unknown, appUrl: string): string | null {
  if (typeof to !== 'string' || to === '' || FORBIDDEN.test(to)) return null
  const base = new URL(appUrl)
  let resolved: URL
  try {
    resolved = new URL(to, base)
  } catch {
    return null
  }
  if (resolved.origin !== base.origin || resolved.pathname.startsWith('//')) return null
  return `${resolved.pathname}${resolved.search}${resolved.hash}`
}

/** `to` as a path on this site, or `fallback` when it is missing or could lead anywhere else. */
export function safeRedirectPath(to: FormDataEntryValue | string | null | undefined, fallback = '/account'): string {
  return ownPathOrNull(to, getEnv().APP_URL) ?? fallback
}
