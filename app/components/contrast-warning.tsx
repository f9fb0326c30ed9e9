import { contrastWarning } from '#app/utils/contrast.ts'

/**
 * Beside a card's preview in the builder: says so when the card's text is hard to read on its background (WCAG
 * contrast below 4.5:1). A warning, not a refusal (decision 015). The live region is always there, empty while the
 * colours read well, so a screen reader announces the warning when a colour change makes it appear.
 */
export function ContrastWarning({ backgroundColor, textColor }: { backgroundColor: string; textColor: string }) {
  const warning = contrastWarning(backgroundColor, textColor)
  return <div role="status">{warning ? <p className="contrast-warning">{warning}</p> : null}</div>
}
