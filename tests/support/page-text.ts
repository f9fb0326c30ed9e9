/**
 * A page's HTML as its text reads, so a test can look for the words a person sees: React writes `<!-- -->`
 * between adjacent text pieces ("{count} stamps") and escapes & < > " ' in text and attributes.
 * Tags stay: a test can still look for an element or an attribute (with its value decoded).
 */
export async function pageText(response: Response) {
  return decodeReactText(await response.text())
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#x27;': "'" }

// One pass, so a decoded `&` never starts another entity (`&amp;lt;` is the text `&lt;`).
const decodeReactText = (html: string) =>
  html.replaceAll('<!-- -->', '').replace(/&(?:amp|lt|gt|quot|#x27);/g, (entity) => ENTITIES[entity]!)
