import { getPublicUser } from '#models/user.server.ts'

/** What the account header shows on every /account page. */
export async function loadAccountHeader(userId: string) {
  const user = await getPublicUser(userId)
  if (!user) throw new Response('Account not found', { status: 404 })
  return {
    user: { id: user.id, email: user.email, logoUrl: user.logoUrl },
  }
}

export type AccountHeaderData = Awaited<ReturnType<typeof loadAccountHeader>>
