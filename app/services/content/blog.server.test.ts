import { describe, expect, test } from 'vitest'
import { getPost, listPosts, parseFrontMatter, parsePost } from './blog.server.ts'

const valid = `---
title: "Stamps: a short history"
date: 2026-01-05
description: Why shops stamp cards.
author: Jo Bloggs
---

## First heading

Some **bold** text.
`

describe('parseFrontMatter', () => {
  test('reads key: value lines, strips quotes and returns the body after the block', () => {
    const { data, body } = parseFrontMatter(valid)
    expect(data).toEqual({
      title: 'Stamps: a short history',
      date: '2026-01-05',
      description: 'Why shops stamp cards.',
      author: 'Jo Bloggs',
    })
    expect(body.trimStart()).toMatch(/^## First heading/)
  })

  test('accepts Windows line endings', () => {
    expect(parseFrontMatter(valid.replaceAll('\n', '\r\n')).data.author).toBe('Jo Bloggs')
  })

  test('refuses a file without a front matter block, or with a malformed line', () => {
    expect(() => parseFrontMatter('# Just Markdown')).toThrow(/front matter/)
    expect(() => parseFrontMatter('---\ntitle Stamps\n---\n')).toThrow(/key: value/)
  })
})

describe('parsePost', () => {
  test('renders the Markdown and adds the slug, a readable date and the reading time', () => {
    const post = parsePost('stamps-history', valid)
    expect(post).toMatchObject({ slug: 'stamps-history', dateLabel: '5 January 2026', readingMinutes: 1 })
    expect(post.html).toContain('<h2>First heading</h2>')
    expect(post.html).toContain('<strong>bold</strong>')
  })

  test('names the post and the field when the front matter is wrong', () => {
    expect(() => parsePost('bad-date', valid.replace('2026-01-05', '5 Jan 2026'))).toThrow(/"bad-date": date/)
    expect(() => parsePost('no-author', valid.replace('author: Jo Bloggs\n', ''))).toThrow(/"no-author": author/)
    expect(() => parsePost('Bad Name', valid)).toThrow(/file name/)
  })
})

describe('the bundled posts', () => {
  test('are listed newest first, each with a summary and no body', () => {
    const posts = listPosts()
    expect(posts.length).toBeGreaterThanOrEqual(3)
    const dates = posts.map((post) => post.date)
    expect(dates).toEqual([...dates].sort().reverse())
    for (const post of posts) {
      expect(post.description.length).toBeGreaterThan(20)
      expect(post).not.toHaveProperty('html')
    }
  })

  test('are found by slug, and an unknown slug finds nothing', () => {
    const [first] = listPosts()
    expect(getPost(first!.slug)?.html).toContain('<h2>')
    expect(getPost('no-such-post')).toBeUndefined()
  })
})
