import * as React from 'react'

// The per-request CSP nonce reaches Remix's inline scripts through this context (set in entry.server.tsx).
// In the browser it is always '': browsers hide nonce attributes from scripts once the page has loaded.
const NonceContext = React.createContext<string>('')

export const NonceProvider = NonceContext.Provider
export const useNonce = () => React.useContext(NonceContext)
