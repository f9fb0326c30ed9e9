/**
 * What an /account page tells the shared layout (route `handle`): its heading, shown in the header on phones, and
 * where the back button goes (docs/product/contracts.md, "Page titles"; specification section 2, "Back button").
 * - 'account': to /account (History, Pricing and Reward Card);
 * - 'previous': one step back (history.back() with JavaScript, the parent address without);
 * - 'hidden': no back button (/account and /account/profile).
 */
export type AccountHandle = {
  title?: string
  back: 'account' | 'previous' | 'hidden'
}

export function isAccountHandle(value: unknown): value is AccountHandle {
  return typeof value === 'object' && value !== null && 'back' in value
}

/** Without JavaScript "one step back" is the parent address: /account/x/y → /account/x. */
export function parentPath(pathname: string): string {
  const trimmed = pathname.replace(/\/+$/, '')
  const parent = trimmed.slice(0, trimmed.lastIndexOf('/'))
  return parent.startsWith('/account') ? parent : '/account'
}
