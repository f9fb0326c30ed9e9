import { type LegalPageContent } from '#app/services/content/pages.server.ts'

/**
 * Terms and privacy: a title, the date of the text, a table of contents and numbered sections. The text is
 * Markdown in content/pages, rendered on the server (app/services/content/pages.server.ts).
 */
export function LegalPage({ page }: { page: LegalPageContent }) {
  return (
    <main className="container page">
      <header className="page-header">
        <p className="eyebrow">Legal</p>
        <h1>{page.title}</h1>
        <p className="post-meta">
          Last updated <time dateTime={page.updated.iso}>{page.updated.label}</time>
        </p>
      </header>
      <div className="legal">
        <nav className="legal__toc" aria-labelledby="legal-toc-title">
          <h2 id="legal-toc-title">Contents</h2>
          <ol>
            {page.sections.map((section) => (
              <li key={section.id}>
                <a href={`#${section.id}`}>{section.title}</a>
              </li>
            ))}
          </ol>
        </nav>
        {/* Our own Markdown, reviewed in the repository; the values filled in are escaped. */}
        <div className="prose" dangerouslySetInnerHTML={{ __html: page.html }} />
      </div>
    </main>
  )
}

/** The page's title and description come from the Markdown file's front matter. */
export function legalMeta(data: { page: LegalPageContent } | undefined, fallbackTitle: string) {
  if (!data) return [{ title: `${fallbackTitle} — Stampwise` }]
  return [{ title: `${data.page.title} — Stampwise` }, { name: 'description', content: data.page.description }]
}
