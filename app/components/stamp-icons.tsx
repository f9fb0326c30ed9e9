import { stampIconPathData } from '#app/utils/stamp-icon-drawings.ts'

/** A card's stamp icon as a 24×24 stroke path, for an enclosing <svg> (the drawings: utils/stamp-icon-drawings.ts). */
export function StampIconPath({ icon }: { icon: string }) {
  return (
    <path
      d={stampIconPathData(icon)}
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
    />
  )
}
