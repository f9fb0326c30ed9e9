import QRCode from 'qrcode'

/** The holder's QR code as inline SVG (dark on white, as scanners expect), encoding the pass's short code. */
export function passQrSvg(shortCode: string): Promise<string> {
  return QRCode.toString(shortCode, {
    type: 'svg',
    errorCorrectionLevel: 'M',
    margin: 2,
    color: { dark: '#000000', light: '#ffffff' },
  })
}
