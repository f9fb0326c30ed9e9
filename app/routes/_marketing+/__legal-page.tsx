import { type ReactNode } from 'react'

export type LegalSection = { id: string; title: string; body: ReactNode }

/** Terms and privacy: a title, the date of the text, a table of contents and numbered sections. */
export function LegalPage({
  title,
  updated,
  intro,
  sections,
}: {
  title: string
  updated: { iso: string; label: string }
  intro: ReactNode
  sections: LegalSection[]
}) {
  return (
    <main className="container page">
      <header className="page-header">
        <p className="eyebrow">Legal</p>
        <h1>{title}</h1>
        <p className="post-meta">
          Last updated <time dateTime={updated.iso}>{updated.label}</time>
        </p>
      </header>
      <div className="legal">
        <nav className="legal__toc" aria-labelledby="legal-toc-title">
          <h2 id="legal-toc-title">Contents</h2>
          <ol>
            {sections.map((section) => (
              <li key={section.id}>
                <a href={`#${section.id}`}>{section.title}</a>
              </li>
            ))}
          </ol>
        </nav>
        <div className="prose">
          {intro}
          {sections.map((section, index) => (
            <section key={section.id} id={section.id} aria-labelledby={`${section.id}-title`}>
              <h2 id={`${section.id}-title`}>
                {index + 1}. {section.title}
              </h2>
              {section.body}
            </section>
          ))}
        </div>
      </div>
    </main>
  )
}
