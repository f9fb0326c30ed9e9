import crypto from 'node:crypto'
import { createCookie, redirect } from '@remix-run/node'
import { z } from 'zod'
import { getEnv } from './env.server.ts'
import { getSessionSecrets } from './secrets.server.ts'

/**
 * One-shot messages carried across a redirect in a short-lived signed cookie, so they show with and without
 * JavaScript (post/redirect/get). The root loader reads and clears it.
 */
export const ToastSchema = z.object({
  id: z.string(),
  message: z.string().max(300),
  type: z.enum(['success', 'error', 'info']).default('success'),
  durationMs: z.number().int().positive().max(60_000).default(4_000),
})
export type Toast = z.infer<typeof ToastSchema>
export type ToastInput = Omit<z.input<typeof ToastSchema>, 'id'>

let toastCookie: ReturnType<typeof createCookie> | undefined
function getToastCookie() {
  toastCookie ??= createCookie('__toast', {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: getEnv().APP_URL.startsWith('https://'),
    secrets: getSessionSecrets(),
    maxAge: 60,
  })
  return toastCookie
}

export async function toastHeader(toast: ToastInput): Promise<string> {
  return getToastCookie().serialize(ToastSchema.parse({ ...toast, id: crypto.randomUUID() }))
}

export async function redirectWithToast(url: string, toast: ToastInput, init: ResponseInit = {}) {
  const headers = new Headers(init.headers)
  headers.append('Set-Cookie', await toastHeader(toast))
  return redirect(url, { ...init, headers })
}

/** The pending toast, and the header that clears it (undefined when there is none: no cookie work on most pages). */
export async function readToast(request: Request): Promise<{ toast: Toast | null; clearHeader?: string }> {
  const cookieHeader = request.headers.get('Cookie')
  if (!cookieHeader?.includes('__toast=')) return { toast: null }
  const parsed = ToastSchema.safeParse(await getToastCookie().parse(cookieHeader))
  return {
    toast: parsed.success ? parsed.data : null,
    clearHeader: await getToastCookie().serialize('', { maxAge: 0 }),
  }
}
