import { Marked } from 'marked'
import { z } from 'zod'

/**
 * Blog posts are Markdown files in content/blog, bundled into the server build by Vite (no file reads at run time).
 * Each starts with a front matter block of `key: value` lines between two `---` lines.
 */
const sources = import.meta.glob<string>('../../../content/blog/*.md', {
  query: '?raw',
  import: 'default',
  eager: true,
})

const FrontMatterSchema = z.object({
  title: z.string().min(1),
  date: z.iso.date('must be a date written YYYY-MM-DD'),
  description: z.string().min(1),
  author: z.string().min(1),
})

export type PostSummary = z.infer<typeof FrontMatterSchema> & {
  slug: string
  dateLabel: string
  readingMinutes: number
}
export type Post = PostSummary & { html: string }

const WORDS_READ_PER_MINUTE = 220
export const markdown = new Marked({ gfm: true })

/** Splits a front matter block from the Markdown body. Values may be wrapped in single or double quotes. */
export function parseFrontMatter(source: string): { data: Record<string, string>; body: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(source)
  if (!match) throw new Error('the file must start with a front matter block between two --- lines')
  const data: Record<string, string> = {}
  for (const line of match[1]!.split(/\r?\n/)) {
    if (!line.trim()) continue
    const pair = /^([A-Za-z][\w-]*):\s*(.*)$/.exec(line)
    if (!pair) throw new Error(`front matter line is not "key: value": ${line}`)
    data[pair[1]!] = pair[2]!.trim().replace(/^(['"])(.*)\1$/, '$2')
  }
  return { data, body: source.slice(match[0].length) }
}

/** Turns one Markdown file into a post; throws with the file's slug in the message when its front matter is wrong. */
export function parsePost(slug: string, source: string): Post {
  if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(slug)) throw new Error(`blog post "${slug}": file name must be a-z, 0-9 and -`)
  const { data, body } = parseFrontMatter(source)
  const result = FrontMatterSchema.safeParse(data)
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ')
    throw new Error(`blog post "${slug}": ${problems}`)
  }
  const words = body.split(/\s+/).filter(Boolean).length
  return {
    ...result.data,
    slug,
    dateLabel: formatDate(result.data.date),
    readingMinutes: Math.max(1, Math.round(words / WORDS_READ_PER_MINUTE)),
    // The Markdown is our own, reviewed in the repository: its HTML is trusted as written.
    html: markdown.parse(body, { async: false }),
  }
}

/** "2026-11-12" → "12 November 2026" */
export function formatDate(date: string) {
  const format = { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' } as const
  return new Date(`${date}T00:00:00Z`).toLocaleDateString('en-GB', format)
}

function slugFromPath(filePath: string) {
  return filePath.replace(/^.*\//, '').replace(/\.md$/, '')
}

const posts: Post[] = Object.entries(sources)
  .map(([filePath, source]) => parsePost(slugFromPath(filePath), source))
  .sort((a, b) => b.date.localeCompare(a.date) || a.title.localeCompare(b.title))

/** Every post without its body, newest first. */
export function listPosts(): PostSummary[] {
  return posts.map(({ html: _html, ...summary }) => summary)
}

export function getPost(slug: string): Post | undefined {
  return posts.find((post) => post.slug === slug)
}
