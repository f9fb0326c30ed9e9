import { Link } from '@remix-run/react'

/** Templates as choices, each opening the composer filled from it (the base page and the template list share it). */
export type TemplateChoice = { id: string; title: string; body: string }

export function TemplateList({ cardId, templates }: { cardId: string; templates: TemplateChoice[] }) {
  return (
    <ul className="template-list">
      {templates.map((template) => (
        <li key={template.id}>
          <Link
            className="panel template-choice"
            to={`/account/${cardId}/push_notification/template/${template.id}/create`}
          >
            <strong className="template-choice__title">{template.title}</strong>
            <span className="template-choice__body">{template.body}</span>
          </Link>
        </li>
      ))}
    </ul>
  )
}
