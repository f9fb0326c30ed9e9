// Decorative QR modules for the illustration (21 × 21, one string a row, '#' a dark module); it encodes nothing.
const QR_ROWS = [
  '#######.##.#..#######',
  '#.....#.##.##.#.....#',
  '#.###.#.###.#.#.###.#',
  '#.###.#.#...#.#.###.#',
  '#.###.#..#.##.#.###.#',
  '#.....#.##.#..#.....#',
  '#######..#.##.#######',
  '........#.##.........',
  '.#..#....#.##.#.#....',
  '#........#....##.#.##',
  '#.###.##....###..####',
  '..####......#....###.',
  '###########..#####...',
  '.........####.##..#.#',
  '#######.....###...##.',
  '#.....#......#.#####.',
  '#.###.#..#...#####...',
  '#.###.#....#.....#.#.',
  '#.###.#..##..###..#..',
  '#.....#..#.##....#..#',
  '#######.###.###.#...#',
]

// The SVG path draws each row's dark modules as horizontal runs, left to right.
const QR_MODULES = QR_ROWS.flatMap((row, y) =>
  Array.from(row.matchAll(/#+/g), (run) => `M${run.index} ${y}h${run[0].length}v1h-${run[0].length}z`),
).join('')

const STAMPS = 10
const COLLECTED = 7

/** The hero's picture: a holder's stamp card on a phone, with a push message arriving. Inline SVG, no download. */
export function StampCardIllustration() {
  return (
    <svg
      className="hero-art"
      role="img"
      aria-labelledby="hero-art-title"
      viewBox="0 0 340 430"
      width="340"
      height="430"
    >
      <title id="hero-art-title">
        A Stampwise card on a phone: Corner Café coffee card, 7 of 10 stamps, and a message from the café arriving
      </title>
      <defs>
        <symbol id="hero-cup" viewBox="0 0 24 24">
          <path
            d="M5 8h11v5a5 5 0 0 1-5 5h-1a5 5 0 0 1-5-5z M16 10h1.5a2.5 2.5 0 0 1 0 5H16"
            fill="none"
            stroke="currentColor"
            strokeWidth="2"
            strokeLinejoin="round"
          />
          <path
            d="M8 3.5c0 1 1 1 1 2M12 3.5c0 1 1 1 1 2"
            fill="none"
            stroke="currentColor"
            strokeWidth="1.6"
            strokeLinecap="round"
          />
        </symbol>
      </defs>
      <rect x="58" y="6" width="244" height="418" rx="36" fill="#17233b" />
      <rect x="70" y="18" width="220" height="394" rx="26" fill="#fffaf5" />
      <rect x="150" y="27" width="60" height="8" rx="4" fill="#17233b" />

      <rect x="84" y="50" width="192" height="206" rx="16" fill="#1f3a5f" />
      <text x="102" y="79" fill="#f6d7a7" fontSize="11" fontWeight="700" letterSpacing="1.5">
        CORNER CAFÉ
      </text>
      <text x="102" y="102" fill="#ffffff" fontSize="19" fontWeight="700">
        Coffee card
      </text>
      {Array.from({ length: STAMPS }, (_, index) => {
        const cx = 108 + (index % 5) * 36
        const cy = 134 + Math.floor(index / 5) * 38
        return index < COLLECTED ? (
          <g key={index}>
            <circle cx={cx} cy={cy} r="14" fill="#ffffff" />
            <use href="#hero-cup" x={cx - 9} y={cy - 9} width="18" height="18" color="#b9381b" />
          </g>
        ) : (
          <circle
            key={index}
            cx={cx}
            cy={cy}
            r="13"
            fill="none"
            stroke="#9fb3cc"
            strokeWidth="2"
            strokeDasharray="4 3"
          />
        )
      })}
      <text x="102" y="216" fill="#ffffff" fontSize="13" fontWeight="600">{`${COLLECTED} of ${STAMPS} stamps`}</text>
      <text x="102" y="236" fill="#d5deea" fontSize="11">
        Reward: a free coffee
      </text>

      <rect x="176" y="280" width="92" height="92" rx="8" fill="#ffffff" stroke="#e7dfd6" />
      <path d={QR_MODULES} transform="translate(184 288) scale(3.62)" fill="#17233b" />
      <text
        x="222"
        y="394"
        fill="#17233b"
        fontSize="13"
        fontFamily="ui-monospace, monospace"
        fontWeight="700"
        textAnchor="middle"
      >
        K7QM 4XPT
      </text>

      <g>
        <rect x="4" y="288" width="160" height="74" rx="14" fill="#ffffff" stroke="#e7dfd6" />
        <rect x="16" y="300" width="24" height="24" rx="6" fill="#1f3a5f" />
        <use href="#hero-cup" x="19" y="303" width="18" height="18" color="#ffffff" />
        <text x="48" y="311" fill="#17233b" fontSize="11" fontWeight="700">
          Corner Café
        </text>
        <text x="48" y="325" fill="#4a5568" fontSize="10">
          now
        </text>
        <text x="16" y="342" fill="#17233b" fontSize="11">
          One more stamp and your
        </text>
        <text x="16" y="356" fill="#17233b" fontSize="11">
          next coffee is on us
        </text>
      </g>
    </svg>
  )
}
