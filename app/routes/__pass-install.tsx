import { useEffect, useState } from 'react'

/** Chrome's and Edge's install prompt (not in the DOM typings). */
type InstallPromptEvent = Event & { prompt: () => Promise<void> }

declare global {
  interface Window {
    /** Kept by the pass page's inline script: the prompt may come before React hydrates. */
    passInstallPrompt?: InstallPromptEvent | null
  }
}

/**
 * The pass page's inline script, run before hydration. It registers the pass's service worker (public/pass-sw.js,
 * scoped to this pass) and keeps the browser's install prompt for the Install button. It never touches the page:
 * React owns every element, so the server's HTML always matches React's first render.
 */
export const PASS_PAGE_SCRIPT = `(function(){
if('serviceWorker' in navigator)navigator.serviceWorker.register('/pass-sw.js',{scope:location.pathname}).catch(function(){});
addEventListener('beforeinstallprompt',function(event){event.preventDefault();window.passInstallPrompt=event;dispatchEvent(new Event('pass-install-prompt'))});
})()`

/**
 * 'Add to Home Screen' guidance, per platform and readable without JavaScript, with an Install button where the
 * browser offers one.
 */
export function InstallGuide() {
  return (
    <section className="pass-page__install" aria-labelledby="install-heading">
      <h2 id="install-heading">Add to Home Screen</h2>
      <p>Keep your card one tap away:</p>
      <InstallButton />
      <ul>
        <li>
          <strong>iPhone or iPad (Safari):</strong> tap Share, then Add to Home Screen.
        </li>
        <li>
          <strong>Android (Chrome):</strong> open the ⋮ menu, then Install app or Add to Home screen.
        </li>
        <li>
          <strong>Elsewhere:</strong> bookmark this page; it is your card.
        </li>
      </ul>
    </section>
  )
}

function InstallButton() {
  const [prompt, setPrompt] = useState<InstallPromptEvent | null>(null)
  useEffect(() => {
    const take = () => setPrompt(window.passInstallPrompt ?? null)
    take()
    addEventListener('pass-install-prompt', take)
    return () => removeEventListener('pass-install-prompt', take)
  }, [])
  if (!prompt) return null
  return (
    <button
      type="button"
      className="button"
      onClick={() => {
        void prompt.prompt()
        window.passInstallPrompt = null
        setPrompt(null)
      }}
    >
      Install
    </button>
  )
}
