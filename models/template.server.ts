import { getSequelize } from '#app/utils/db.server.ts'

export type TemplateView = { id: string; title: string; body: string; link: string | null; shared: boolean }

/** The shared templates (seeded by us) and the owner's own, shared first. */
export async function listTemplatesForOwner(userId: string): Promise<TemplateView[]> {
  const [rows] = (await getSequelize().query(
    `select id, title, body, link, user_id is null as shared from templates
     where user_id is null or user_id = :userId
     order by user_id is not null, created_at, title`,
    { replacements: { userId } },
  )) as [TemplateView[], unknown]
  return rows
}
