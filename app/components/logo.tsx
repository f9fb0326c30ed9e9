/** The Stampwise word mark: a stamp ring and the name. Pure SVG, no request. */
export function Logo({ className }: { className?: string }) {
  return (
    <span className={['logo', className].filter(Boolean).join(' ')}>
      <svg aria-hidden="true" width="28" height="28" viewBox="0 0 32 32">
        <circle cx="16" cy="16" r="13" fill="none" stroke="#b9381b" strokeWidth="3" strokeDasharray="4 3" />
        <path
          d="M10.5 16.5l3.5 3.5 7.5-8"
          fill="none"
          stroke="#17233b"
          strokeWidth="3"
          strokeLinecap="round"
          strokeLinejoin="round"
        />
      </svg>
      <span className="logo__text">Stampwise</span>
    </span>
  )
}
