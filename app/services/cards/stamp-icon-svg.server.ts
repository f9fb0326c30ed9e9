import { stampIconPathMarkup } from '#app/utils/stamp-icon-drawings.ts'

/**
 * The card's stamp icon drawn server-side, for images made from a card's design (Apple pass images, the logo drawn
 * for a card without one): the 24×24 stroke drawing the pages show, as an SVG group.
 */
export function stampIconSvg(icon: string, color: string, x: number, y: number, size: number) {
  const path = stampIconPathMarkup(icon)
  return `<g transform="translate(${x} ${y}) scale(${size / 24})" color="${color}">${path}</g>`
}
