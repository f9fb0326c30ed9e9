import { useEffect, useRef, useState } from 'react'
// The polyfill's decoder, served by Stampwise from the client build (hashed under /assets): never from a CDN.
import zxingWasmUrl from 'zxing-wasm/reader/zxing_reader.wasm?url'

type Detector = { detect: (source: HTMLVideoElement) => Promise<Array<{ rawValue: string }>> }

/** The browser's own BarcodeDetector where it reads QR codes, else the zxing-wasm polyfill, loaded on first use. */
async function createQrDetector(): Promise<Detector> {
  const native = (
    globalThis as {
      BarcodeDetector?: { new (options: { formats: string[] }): Detector; getSupportedFormats(): Promise<string[]> }
    }
  ).BarcodeDetector
  if (native && (await native.getSupportedFormats().catch((): string[] => [])).includes('qr_code'))
    return new native({ formats: ['qr_code'] })
  const { BarcodeDetector, prepareZXingModule } = await import('barcode-detector/ponyfill')
  prepareZXingModule({
    overrides: {
      locateFile: (path: string, prefix: string) => (path.endsWith('.wasm') ? zxingWasmUrl : prefix + path),
    },
  })
  return new BarcodeDetector({ formats: ['qr_code'] }) as unknown as Detector
}

const SCAN_INTERVAL_MS = 200

/**
 * 'Scan with camera' (JavaScript only: without it nothing renders, and the code field does the job). The camera's
 * picture is read a few times a second; the first QR value fills the `code` field and sends the stamp form.
 */
export function ScanCamera({ formId, codeInputId }: { formId: string; codeInputId: string }) {
  const [hydrated, setHydrated] = useState(false)
  const [state, setState] = useState<'idle' | 'starting' | 'scanning' | 'error'>('idle')
  const [message, setMessage] = useState('')
  const videoRef = useRef<HTMLVideoElement>(null)
  const streamRef = useRef<MediaStream | null>(null)

  useEffect(() => setHydrated(true), [])
  useEffect(() => () => streamRef.current?.getTracks().forEach((track) => track.stop()), [])

  useEffect(() => {
    if (state !== 'scanning') return
    let stopped = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const stop = () => {
      stopped = true
      clearTimeout(timer)
      streamRef.current?.getTracks().forEach((track) => track.stop())
      streamRef.current = null
    }
    void createQrDetector()
      .then((detector) => {
        const tick = async () => {
          if (stopped) return
          const video = videoRef.current
          if (video && video.readyState >= 2) {
            const [found] = await detector.detect(video).catch(() => [])
            if (found?.rawValue && !stopped) {
              const input = document.getElementById(codeInputId) as HTMLInputElement | null
              const form = document.getElementById(formId) as HTMLFormElement | null
              if (input && form) {
                input.value = found.rawValue
                stop()
                setState('idle')
                form.requestSubmit()
                return
              }
            }
          }
          timer = setTimeout(() => void tick(), SCAN_INTERVAL_MS)
        }
        void tick()
      })
      .catch(() => {
        setState('error')
        setMessage('This browser cannot read QR codes: type the code instead.')
      })
    return stop
  }, [state, formId, codeInputId])

  async function start() {
    if (!navigator.mediaDevices?.getUserMedia) {
      setState('error')
      setMessage('This browser cannot use the camera here: type the code instead.')
      return
    }
    setState('starting')
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false })
      streamRef.current = stream
      if (videoRef.current) {
        videoRef.current.srcObject = stream
        await videoRef.current.play().catch(() => undefined)
      }
      setMessage('Hold the holder’s QR code in front of the camera.')
      setState('scanning')
    } catch {
      setState('error')
      setMessage('The camera is not available: allow it in the browser, or type the code instead.')
    }
  }

  function cancel() {
    streamRef.current?.getTracks().forEach((track) => track.stop())
    streamRef.current = null
    setState('idle')
    setMessage('')
  }

  if (!hydrated) return null
  const active = state === 'starting' || state === 'scanning'
  return (
    <div className="scan-camera">
      {active ? (
        <button type="button" className="button button--ghost" onClick={cancel}>
          Stop camera
        </button>
      ) : (
        <button type="button" className="button button--ghost" onClick={() => void start()}>
          Scan with camera
        </button>
      )}
      <video
        ref={videoRef}
        className="scan-camera__video"
        hidden={!active}
        muted
        playsInline
        aria-label="Camera picture"
      />
      {message ? (
        <p className="field-hint" role="status">
          {message}
        </p>
      ) : null}
    </div>
  )
}
