import { isStampIcon, type StampIcon } from './stamp-icon-names.ts'

/*
 * The stamp icons of docs/product/holders-and-cards.md, as 24×24 stroke paths drawn in the card's colours (no image
 * download). Here, not in a component, because the pages (components/stamp-icons.tsx) and the images made on the
 * server (pass icons, Apple pass strips) draw the same strokes, and services do not import components (decision 054).
 */

const PATHS: Record<StampIcon, string> = {
  star: 'M12 3l2.7 5.6 6.1.9-4.4 4.3 1 6.1L12 17l-5.4 2.9 1-6.1-4.4-4.3 6.1-.9z',
  heart: 'M12 20s-7-4.4-8.6-9A4.6 4.6 0 0 1 12 6.6 4.6 4.6 0 0 1 20.6 11C19 15.6 12 20 12 20z',
  coffee:
    'M5 8h11v5a5 5 0 0 1-5 5h-1a5 5 0 0 1-5-5zM16 10h1.5a2.5 2.5 0 0 1 0 5H16M8 3.5c0 1 1 1 1 2M12 3.5c0 1 1 1 1 2',
  gift: 'M4 10h16v4H4zM6 14h12v6H6zM12 10v10M12 10c-1.5-4-6-4-5-1.5S12 10 12 10zM12 10c1.5-4 6-4 5-1.5S12 10 12 10z',
  check: 'M5 12.5l4.5 4.5L19 7.5',
  paw: 'M12 13c-3 0-5.5 3-5.5 5 0 1.5 1.5 2 2.5 2 1.2 0 2-.6 3-.6s1.8.6 3 .6c1 0 2.5-.5 2.5-2 0-2-2.5-5-5.5-5zM6 10.5a1.8 2.3 0 1 0 0 .1zM10 7a1.8 2.3 0 1 0 0 .1zM14 7a1.8 2.3 0 1 0 0 .1zM18 10.5a1.8 2.3 0 1 0 0 .1z',
  scissors: 'M6 7a2.5 2.5 0 1 0 0 .1zM6 17a2.5 2.5 0 1 0 0 .1zM8 8.5L20 17M8 15.5L20 7',
  pizza: 'M12 3L3.5 18.5a18 18 0 0 0 17 0zM12 3l0 0M9 11a1 1 0 1 0 0 .1zM14 14a1 1 0 1 0 0 .1zM10 16a1 1 0 1 0 0 .1z',
}

/** The path data of a card's stamp icon; an unknown name draws the star. */
export function stampIconPathData(icon: string): string {
  return PATHS[isStampIcon(icon) ? icon : 'star']
}

/** The icon as SVG markup (stroke="currentColor", which an enclosing group's color sets), for server-made images. */
export function stampIconPathMarkup(icon: string): string {
  return (
    `<path d="${stampIconPathData(icon)}" fill="none" stroke="currentColor" stroke-width="2"` +
    ` stroke-linecap="round" stroke-linejoin="round"></path>`
  )
}
