import { useEffect, useRef } from 'react'

/**
 * A short burst of confetti for a moment worth it (the first card ready, a plan becoming active): once per
 * occasion and browser (remembered in localStorage), and never under prefers-reduced-motion. The library is loaded
 * only when it plays, and draws on its own canvas without a worker (the CSP allows no blob: workers).
 */
export function Celebration({ occasionId }: { occasionId: string | null }) {
  const canvasRef = useRef<HTMLCanvasElement>(null)
  useEffect(() => {
    const canvas = canvasRef.current
    if (!occasionId || !canvas) return
    if (window.matchMedia('(prefers-reduced-motion: reduce)').matches) return
    const key = `stampwise:celebrated:${occasionId}`
    try {
      if (window.localStorage.getItem(key)) return
      window.localStorage.setItem(key, new Date().toISOString())
    } catch {
      return // storage blocked: better no confetti than confetti on every page
    }
    let cancelled = false
    void import('canvas-confetti').then(({ default: confetti }) => {
      if (cancelled) return
      const fire = confetti.create(canvas, { resize: true, useWorker: false })
      canvas.dataset.playing = 'true'
      void fire({ particleCount: 140, spread: 80, origin: { y: 0.35 }, disableForReducedMotion: true })?.then(() => {
        canvas.dataset.playing = 'false'
      })
    })
    return () => {
      cancelled = true
    }
  }, [occasionId])
  if (!occasionId) return null
  return <canvas ref={canvasRef} className="celebration-canvas" aria-hidden="true" data-occasion={occasionId ?? ''} />
}
