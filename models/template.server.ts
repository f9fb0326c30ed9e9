import { getSequelize } from '#app/server/db.server.ts'
import { isUuid } from './card.server.ts'

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

/** A shared template or one of the owner's own; null for another owner's (a 404) or an unknown id. */
export async function getTemplateForOwner({
  ownerId,
  templateId,
}: {
  ownerId: string
  templateId: string
}): Promise<TemplateView | null> {
  if (!isUuid(templateId)) return null
  const [rows] = (await getSequelize().query(
    `select id, title, body, link, user_id is null as shared from templates
     where id = :templateId and (user_id is null or user_id = :ownerId)`,
    { replacements: { ownerId, templateId } },
  )) as [TemplateView[], unknown]
  return rows[0] ?? null
}

/** Saves the composer's message as one of the owner's templates (the composer's "Also save as a template"). */
export async function saveOwnerTemplate({
  ownerId,
  title,
  body,
  link,
}: {
  ownerId: string
  title: string
  body: string
  link?: string | null
}): Promise<{ id: string }> {
  const [rows] = (await getSequelize().query(
    `insert into templates (user_id, title, body, link) values (:ownerId, :title, :body, :link) returning id`,
    { replacements: { ownerId, title, body, link: link ?? null } },
  )) as [{ id: string }[], unknown]
  return rows[0]!
}

/**
 * Templates by id, for the template-api call (`?templates=id,id`): only those the owner may use, in the order asked.
 */
export async function getTemplatesForOwner({
  ownerId,
  templateIds,
}: {
  ownerId: string
  templateIds: string[]
}): Promise<TemplateView[]> {
  const ids = templateIds.filter((id) => isUuid(id))
  if (ids.length === 0) return []
  const [rows] = (await getSequelize().query(
    `select id, title, body, link, user_id is null as shared from templates
     where id in (:ids) and (user_id is null or user_id = :ownerId)`,
    { replacements: { ownerId, ids } },
  )) as [TemplateView[], unknown]
  return ids.map((id) => rows.find((row) => row.id === id)).filter((row): row is TemplateView => Boolean(row))
}
