import { type Token, type Tokens } from 'marked'
import { z } from 'zod'
import { company } from '#app/utils/company.ts'
import { formatDate, markdown, parseFrontMatter } from './blog.server.ts'

/**
 * The terms, the privacy policy and the two FAQs are Markdown files in content/pages, bundled into the server build
 * like the blog and parsed once when the build loads, so a mistake in a file fails the build's first start.
 *
 * Values that live elsewhere (the support address from the environment, plan numbers from the tariffs table) are
 * written as {{name}} and filled in per request, HTML-escaped, into the HTML the Markdown became; a block of HTML
 * built by the caller (the plans table) takes the place of an `<!-- block:name -->` line.
 */
const sources = import.meta.glob<string>('../../../content/pages/*.md', {
  query: '?raw',
  import: 'default',
  eager: true,
})

export type Placeholders = Record<string, string | number>

const PLACEHOLDER = /\{\{(\w+)\}\}|%7B%7B(\w+)%7D%7D|<!-- block:(\w+) -->\n?/g

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)

/**
 * Fills {{name}} in text, the same inside a link's address (where Markdown percent-encoded the braces), and block
 * lines. Every name must be given, so a typo in a file cannot reach a visitor as "{{supportEmail}}".
 */
export function fillPlaceholders(html: string, values: Placeholders, blocks: Record<string, string> = {}) {
  return html.replace(PLACEHOLDER, (_match, text?: string, inUrl?: string, block?: string) => {
    if (block) {
      if (!(block in blocks)) throw new Error(`no HTML given for <!-- block:${block} -->`)
      return blocks[block]!
    }
    const name = (text ?? inUrl)!
    if (!(name in values)) throw new Error(`no value given for {{${name}}}`)
    const value = String(values[name])
    return escapeHtml(inUrl ? encodeURI(value) : value)
  })
}

/** The company's facts, which every page may use. */
const companyValues = { product: company.product, legalName: company.legalName, registration: company.registration }

function source(name: string) {
  const text = sources[`../../../content/pages/${name}.md`]
  if (text === undefined) throw new Error(`content/pages/${name}.md is missing`)
  return text
}

// Terms and privacy policy --------------------------------------------------------------------------------------

const LegalFrontMatterSchema = z.object({
  title: z.string().min(1),
  updated: z.iso.date('must be a date written YYYY-MM-DD'),
  description: z.string().min(1),
})

export type LegalPageName = 'terms' | 'privacy-policy'

export type LegalPageContent = {
  title: string
  description: string
  updated: { iso: string; label: string }
  /** The table of contents: each section's anchor and heading. */
  sections: Array<{ id: string; title: string }>
  /** The lead paragraph and the numbered sections, each `<section id>` with its `<h2 id="{id}-title">`. */
  html: string
}

/** "## Title {#anchor}": a section heading names its own anchor, so links to /terms#trial stay valid. */
function sectionHeading(token: Tokens.Heading, page: string) {
  const match = /^(.+?)\s*\{#([a-z0-9]+(?:-[a-z0-9]+)*)\}$/.exec(token.text)
  if (!match) throw new Error(`content/pages/${page}.md: "## ${token.text}" must end with an anchor, e.g. {#trial}`)
  return { title: match[1]!, id: match[2]! }
}

/** Before the first section: one paragraph, the lead. Then one section per "## " heading. */
export function parseLegalPage(page: string, text: string) {
  const { data, body } = parseFrontMatter(text)
  const result = LegalFrontMatterSchema.safeParse(data)
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ')
    throw new Error(`content/pages/${page}.md: ${problems}`)
  }
  const tokens = markdown.lexer(body)
  const firstSection = tokens.findIndex((token) => token.type === 'heading' && token.depth === 2)
  if (firstSection < 0) throw new Error(`content/pages/${page}.md: no "## " section`)
  const lead = tokens.slice(0, firstSection).filter((token) => token.type !== 'space')
  if (lead.length !== 1 || lead[0]!.type !== 'paragraph') {
    throw new Error(`content/pages/${page}.md: the text before the first section must be one paragraph`)
  }
  const sections: Array<{ id: string; title: string; body: Token[] }> = []
  for (const token of tokens.slice(firstSection)) {
    if (token.type === 'heading' && token.depth === 1) throw new Error(`content/pages/${page}.md: use ## for sections`)
    if (token.type === 'heading' && token.depth === 2) {
      sections.push({ ...sectionHeading(token as Tokens.Heading, page), body: [] })
    } else {
      sections.at(-1)!.body.push(token)
    }
  }
  const ids = sections.map((section) => section.id)
  if (new Set(ids).size !== ids.length) throw new Error(`content/pages/${page}.md: two sections share an anchor`)

  const leadHtml = markdown.parseInline((lead[0] as Tokens.Paragraph).text, { async: false })
  const sectionsHtml = sections.map(
    (section, index) =>
      `<section id="${section.id}" aria-labelledby="${section.id}-title">` +
      `<h2 id="${section.id}-title">${index + 1}. ${escapeHtml(section.title)}</h2>` +
      `${markdown.parser(section.body, { async: false })}</section>`,
  )
  return {
    title: result.data.title,
    description: result.data.description,
    updated: { iso: result.data.updated, label: formatDate(result.data.updated) },
    sections: sections.map(({ id, title }) => ({ id, title })),
    html: `<p class="lead">${leadHtml}</p>${sectionsHtml.join('')}`,
  }
}

const legalPages = {
  terms: parseLegalPage('terms', source('terms')),
  'privacy-policy': parseLegalPage('privacy-policy', source('privacy-policy')),
} satisfies Record<LegalPageName, LegalPageContent>

export function getLegalPage(name: LegalPageName, values: { supportEmail: string }): LegalPageContent {
  const page = legalPages[name]
  return { ...page, html: fillPlaceholders(page.html, { ...companyValues, ...values }) }
}

// FAQs ------------------------------------------------------------------------------------------------------------

export type FaqName = 'help-center' | 'account-faq'
export type FaqTopic = { topic: string; items: Array<{ question: string; answerHtml: string }> }

/** "## " starts a topic and "### " a question; what follows a question, up to the next heading, is its answer. */
export function parseFaq(page: string, text: string): FaqTopic[] {
  const topics: FaqTopic[] = []
  let answer: Token[] | null = null
  const finish = () => {
    const item = topics.at(-1)?.items.at(-1)
    if (item && answer) item.answerHtml = markdown.parser(answer, { async: false })
    answer = null
  }
  for (const token of markdown.lexer(text)) {
    if (token.type === 'heading' && token.depth === 2) {
      finish()
      topics.push({ topic: plainHeading(token as Tokens.Heading, page), items: [] })
    } else if (token.type === 'heading' && token.depth === 3) {
      finish()
      const topic = topics.at(-1)
      if (!topic) throw new Error(`content/pages/${page}.md: "### ${token.text}" comes before any "## " topic`)
      topic.items.push({ question: plainHeading(token as Tokens.Heading, page), answerHtml: '' })
      answer = []
    } else if (answer) {
      answer.push(token)
    } else if (token.type !== 'space' && !(token.type === 'html' && /^<!--[\s\S]*-->\s*$/.test(token.raw))) {
      // Only the file's own comment may stand outside a question.
      throw new Error(`content/pages/${page}.md: text outside a question: ${token.raw.slice(0, 60)}`)
    }
  }
  finish()
  for (const topic of topics) {
    if (!topic.items.length) throw new Error(`content/pages/${page}.md: topic "${topic.topic}" has no question`)
    for (const item of topic.items) {
      if (!item.answerHtml.trim()) throw new Error(`content/pages/${page}.md: "${item.question}" has no answer`)
    }
  }
  return topics
}

/** Topic and question headings are shown as plain text (React escapes them), so they must hold no Markdown. */
function plainHeading(token: Tokens.Heading, page: string) {
  const plain = token.tokens.length === 1 && token.tokens[0]!.type === 'text' && !('tokens' in token.tokens[0]!)
  if (!plain || /[{}<>]/.test(token.text)) {
    throw new Error(`content/pages/${page}.md: heading "${token.text}" must be plain text`)
  }
  return token.text
}

const faqs = {
  'help-center': parseFaq('help-center', source('help-center')),
  'account-faq': parseFaq('account-faq', source('account-faq')),
} satisfies Record<FaqName, FaqTopic[]>

export function getFaq(name: FaqName, values: Placeholders, blocks?: Record<string, string>): FaqTopic[] {
  return faqs[name].map(({ topic, items }) => ({
    topic,
    items: items.map(({ question, answerHtml }) => ({
      question,
      answerHtml: fillPlaceholders(answerHtml, { ...companyValues, ...values }, blocks),
    })),
  }))
}
