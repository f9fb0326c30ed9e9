/** The profile logo's rules, shared by the browser's checks and the server's (logo-image.server.ts). */
export const LOGO_MAX_BYTES = 2 * 1024 * 1024
export const LOGO_ACCEPT = 'image/png,image/jpeg,image/webp'

export const LOGO_MESSAGES = {
  missing: 'Choose an image to upload',
  type: 'Upload a PNG, JPEG or WebP image',
  tooLarge: 'The image must be 2 MB or smaller',
  unreadable: 'The image could not be read: it may be damaged. Try another file',
  tooManyPixels: 'The image is too large in pixels: use one under 40 megapixels',
} as const
