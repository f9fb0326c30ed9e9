import { describe, expect, test } from 'vitest'
import { fillPlaceholders, getFaq, getLegalPage, parseFaq, parseLegalPage } from './pages.server.ts'

const faqValues = {
  supportEmail: 'help@example.com',
  planPushes: 'Basic 30 push messages a month',
  trialPushLimit: 10,
  trialDays: 14,
}
const accountValues = { trialDays: 14, trialCards: '3 active cards', trialPushes: '10 push messages a month' }

describe('terms and privacy policy', () => {
  test.each([
    ['terms', 'Terms of service', ['service', 'account', 'trial', 'payment', 'data-protection', 'law']],
    ['privacy-policy', 'Privacy policy', ['who-we-are', 'owners', 'card-holders', 'cookies', 'rights', 'changes']],
  ] as const)('%s renders its lead and its numbered sections with their anchors', (name, title, ids) => {
    const page = getLegalPage(name, { supportEmail: 'help@example.com' })
    expect(page.title).toBe(title)
    expect(page.updated).toEqual({ iso: '2026-11-01', label: '1 November 2026' })
    expect(page.html).toMatch(/^<p class="lead">Stampwise |^<p class="lead">These terms /)
    for (const id of ids) {
      expect(page.sections.map((section) => section.id)).toContain(id)
      expect(page.html).toContain(`<section id="${id}" aria-labelledby="${id}-title"><h2 id="${id}-title">`)
    }
    expect(page.html).toContain(`<h2 id="${page.sections[0]!.id}-title">1. ${page.sections[0]!.title}</h2>`)
    expect(page.html).toContain('<a href="mailto:help@example.com">help@example.com</a>')
    expect(page.html).toContain('<a href="/contacts">contact form</a>')
    expect(page.html).not.toMatch(/\{\{|%7B|block:/)
  })

  test('the terms fill in the company and keep their links', () => {
    const { html, sections } = getLegalPage('terms', { supportEmail: 'help@example.com' })
    expect(sections).toHaveLength(16)
    expect(html).toContain('agreement between Stampwise Ltd (“we”, “us”)')
    expect(html).toContain('<a href="/#pricing">pricing page</a>')
    expect(html).toContain('<a href="/privacy-policy">privacy policy</a>')
    expect(html).toContain('exclusive jurisdiction. Stampwise Ltd · Registered in England and Wales')
  })

  test('a value is escaped as HTML', () => {
    const { html } = getLegalPage('privacy-policy', { supportEmail: 'a<b>@example.com' })
    expect(html).toContain('>a&#60;b&#62;@example.com</a>')
    expect(html).not.toContain('<b>')
  })

  test('a section heading needs an anchor, and the text before the sections is one paragraph', () => {
    const front = '---\ntitle: T\nupdated: 2026-01-01\ndescription: D\n---\n'
    expect(() => parseLegalPage('x', `${front}Lead only.`)).toThrow(/no "## " section/)
    expect(() => parseLegalPage('x', `${front}Lead.\n\n## No anchor\n\nText.`)).toThrow(/must end with an anchor/)
    expect(() => parseLegalPage('x', `${front}Lead.\n\n- a list\n\n## A {#a}\n\nText.`)).toThrow(/one paragraph/)
    expect(() => parseLegalPage('x', `${front}Lead.\n\n## A {#a}\n\nOne.\n\n## B {#a}\n\nTwo.`)).toThrow(/anchor/)
  })
})

describe('FAQs', () => {
  test('the landing page help center: topics, questions and answers with every value filled in', () => {
    const topics = getFaq('help-center', faqValues)
    expect(topics.map((topic) => topic.topic)).toEqual([
      'Your customers',
      'Stamps, rewards and messages',
      'Plans and billing',
      'Privacy and support',
    ])
    const items = topics.flatMap((topic) => topic.items)
    expect(items).toHaveLength(10)
    expect(items[0]!.question).toBe('How do my customers get the card on their phone?')
    const all = items.map((item) => item.answerHtml).join('')
    expect(all).toContain('however many customers receive it: Basic 30 push messages a month, and 10 during the trial.')
    expect(all).toContain('The trial lasts 14 days')
    expect(all).toContain('<a href="mailto:help@example.com">help@example.com</a>')
    expect(all).not.toMatch(/\{\{|%7B/)
  })

  test('the owners’ FAQ takes the plans table as a block of HTML', () => {
    const topics = getFaq('account-faq', accountValues, { plansTable: '<div class="table-scroll">table</div>' })
    const items = topics.flatMap((topic) => topic.items)
    expect(items).toHaveLength(14)
    const plans = items.find((item) => item.question === 'What do the plans cost?')!
    expect(plans.answerHtml).toMatch(/^<div class="table-scroll">table<\/div><p>Every plan has unlimited card holders/)
    expect(items[0]!.answerHtml).toContain('14 days, free, with no payment details asked.')
    expect(() => getFaq('account-faq', accountValues)).toThrow(/block:plansTable/)
  })

  test('a missing value is an error, not a visible {{name}}', () => {
    expect(() => fillPlaceholders('<p>{{nope}}</p>', {})).toThrow(/nope/)
    const { supportEmail: _supportEmail, ...withoutEmail } = faqValues
    expect(() => getFaq('help-center', withoutEmail)).toThrow(/supportEmail/)
  })

  test('questions need a topic and an answer, and headings are plain text', () => {
    expect(() => parseFaq('x', '### Orphan?\n\nYes.')).toThrow(/before any/)
    expect(() => parseFaq('x', '## Topic\n\n### Empty?\n\n## Next\n\n### Q?\n\nA.')).toThrow(/no answer/)
    expect(() => parseFaq('x', '## Topic\n\n### Is *this* plain?\n\nNo.')).toThrow(/plain text/)
    expect(() => parseFaq('x', 'Loose text\n\n## Topic\n\n### Q?\n\nA.')).toThrow(/outside a question/)
  })
})
