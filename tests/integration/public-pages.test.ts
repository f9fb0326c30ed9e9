import { describe, expect, test, vi } from 'vitest'
import { listPosts } from '#app/services/content/blog.server.ts'
import { FeedbackMessage } from '#models/feedback-message.server.ts'
import { Tariff } from '#models/tariff.server.ts'
import { signedInOwner } from '#tests/support/account-owner.ts'
import { useTestServer } from '#tests/support/test-server.ts'

const server = useTestServer()

/** The page's text as a reader sees it: no tags, entities decoded, whitespace collapsed. */
function textOf(html: string) {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<\/?(?:a|span|strong|em|time)\b[^>]*>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
}

async function getPage(pathname: string) {
  const response = await server.get(pathname)
  const html = await response.text()
  return { status: response.status, html, text: textOf(html) }
}

/** Posts a form the way a browser does: url-encoded fields, the honeypot sent empty unless a bot filled it. */
function postForm(pathname: string, fields: Record<string, string>) {
  return server.post(pathname, { website: '', ...fields })
}

const countMessages = (source: 'contacts' | 'feedback') => FeedbackMessage.count({ where: { source } })

describe('public pages', () => {
  const pages = [
    ['/', 'Turn first-time customers into regulars', 'Digital stamp cards, pricing and help — Stampwise'],
    ['/about', 'About Stampwise', 'About us — Stampwise'],
    ['/terms', 'Terms of service', 'Terms of service — Stampwise'],
    ['/privacy-policy', 'Privacy policy', 'Privacy policy — Stampwise'],
    ['/contacts', 'Contact us', 'Contact us — Stampwise'],
    ['/feedback', 'Share your feedback', 'Feedback — Stampwise'],
    ['/blog', 'The Stampwise blog', 'Blog — Stampwise'],
  ] as const

  test.each(pages)('%s answers 200 with its heading and its own title', async (pathname, heading, title) => {
    const { status, html } = await getPage(pathname)
    expect(status).toBe(200)
    expect(textOf(html.match(/<h1[^>]*>([\s\S]*?)<\/h1>/)?.[1] ?? '').trim()).toBe(heading)
    expect(html).toContain(`<title>${title}</title>`)
  })

  test('every blog post answers 200 with its title, and the list links to each', async () => {
    const list = await getPage('/blog')
    const posts = listPosts()
    expect(posts.length).toBeGreaterThanOrEqual(3)
    for (const post of posts) {
      expect(list.html).toContain(`href="/blog/${post.slug}"`)
      const page = await getPage(`/blog/${post.slug}`)
      expect(page.status).toBe(200)
      expect(page.text).toContain(post.title)
      expect(page.html).toContain('<h2')
    }
  })

  test('an unknown blog post answers 404 with the not-found page inside the site chrome', async () => {
    const { status, html, text } = await getPage('/blog/no-such-post')
    expect(status).toBe(404)
    expect(text).toContain("We can't find that page")
    expect(html).toContain('class="site-header"')
  })

  test('the landing page has the product, pricing and help sections and calls to sign up or log in', async () => {
    const { html, text } = await getPage('/')
    for (const id of ['product', 'pricing', 'help']) expect(html).toContain(`id="${id}"`)
    expect(html).toContain('href="/sign-up"')
    expect(html).toContain('href="/login"')
    expect(text).toContain('How do my customers get the card on their phone?')
    expect(html.match(/<details class="faq__item"/g)?.length).toBeGreaterThanOrEqual(8)
  })
})

describe('pricing', () => {
  test('shows the trial and the three plans with the prices and limits of the tariffs table', async () => {
    const { text } = await getPage('/')
    // Issue 33, item 2: what each plan really holds, seats from the tariffs table; every plan's locations and
    // automatic messages; no wallet line, as this server has no wallet set up.
    const everyPlan = 'Up to 50 locations Automatic messages, not counted in the monthly ones Unlimited card holders'
    expect(text).toContain(
      `$0 for 14 days No payment details needed 3 active cards 10 push messages a month 2 staff logins ${everyPlan}`,
    )
    expect(text).toContain(
      `$19/month or $190/year (save $38) 1 active card 4 push messages a month 2 staff logins ${everyPlan}`,
    )
    expect(text).toContain(
      `$39/month or $390/year (save $78) 3 active cards 12 push messages a month 5 staff logins ${everyPlan}`,
    )
    expect(text).toContain(
      `$79/month or $790/year (save $158) 10 active cards 40 push messages a month 20 staff logins ${everyPlan}`,
    )
    expect(text).not.toContain('Wallet passes')
    expect(text).toContain('Paid plans are billed by invoice and bank transfer.')
  })

  test('a price changed in the database shows once the public page cache (5 s) has expired', async () => {
    await getPage('/') // fills the cache
    await Tariff.update({ monthlyPriceCents: 2450, yearlyPriceCents: 24500 }, { where: { tier: 1 } })
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() })
    try {
      expect((await getPage('/')).text).toContain('$19/month') // anonymous visitors share one render for 5 s
      vi.setSystemTime(Date.now() + 6_000)
      const { text } = await getPage('/')
      expect(text).toContain('$24.50/month or $245/year')
      expect(text).not.toContain('$19/month')
    } finally {
      vi.useRealTimers()
      await Tariff.update({ monthlyPriceCents: 1900, yearlyPriceCents: 19000 }, { where: { tier: 1 } })
    }
  })

  test('a visitor with a cookie never gets the shared render', async () => {
    await getPage('/')
    await Tariff.update({ monthlyPriceCents: 2450 }, { where: { tier: 1 } })
    try {
      const response = await server.fetch('/', { headers: { Cookie: 'anything=1' } })
      expect(textOf(await response.text())).toContain('$24.50/month')
    } finally {
      await Tariff.update({ monthlyPriceCents: 1900 }, { where: { tier: 1 } })
    }
  })

  test('every answer from the shared render carries its own CSP nonce', async () => {
    const nonces = await Promise.all(
      [1, 2].map(async () => {
        const response = await server.fetch('/')
        const header = /'nonce-([^']+)'/.exec(response.headers.get('content-security-policy') ?? '')?.[1]
        const html = await response.text()
        expect(header).toBeTruthy()
        expect(html).toContain(`nonce="${header}"`)
        return header
      }),
    )
    expect(nonces[0]).not.toBe(nonces[1])
  })
})

describe('contact form', () => {
  const valid = {
    name: 'Maria Rossi',
    email: 'maria@example.com',
    subject: 'Poster size',
    message: 'Which paper size?',
  }

  test('an empty submission answers 400 with a message for every field and stores nothing', async () => {
    const before = await countMessages('contacts')
    const response = await postForm('/contacts', { name: '', email: '', subject: '', message: '' })
    expect(response.status).toBe(400)
    const html = await response.text()
    for (const message of ['Enter your name', 'Enter a valid email address', 'Enter a subject', 'Write your message']) {
      expect(textOf(html)).toContain(message)
    }
    expect(html.match(/aria-invalid="true"/g)).toHaveLength(4)
    expect(await countMessages('contacts')).toBe(before)
  })

  test('a bad e-mail or an overlong message is named, and what was typed stays in the form', async () => {
    const response = await postForm('/contacts', { ...valid, email: 'maria-at-example', message: 'x'.repeat(5001) })
    expect(response.status).toBe(400)
    const html = await response.text()
    expect(textOf(html)).toContain('Enter a valid email address')
    expect(textOf(html)).toContain('Keep your message to 5,000 characters or fewer')
    expect(textOf(html)).not.toContain('Enter your name')
    expect(html).toContain('value="Maria Rossi"')
    expect(html).toMatch(/id="[^"]*email"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*id="[^"]*email"/)
  })

  test('a valid message is stored and the browser is sent to the confirmation', async () => {
    const response = await postForm('/contacts', valid)
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toBe('/contacts?sent=1')
    const row = await FeedbackMessage.findOne({ where: { source: 'contacts', email: valid.email }, raw: true })
    expect(row).toMatchObject({ name: valid.name, subject: valid.subject, message: valid.message, userId: null })

    const { html, text } = await getPage('/contacts?sent=1')
    expect(html).toContain('role="status"')
    expect(text).toContain('Thank you, your message has been sent')
  })

  test('a filled honeypot gets the same confirmation but nothing is stored', async () => {
    const before = await countMessages('contacts')
    const response = await postForm('/contacts', { ...valid, website: 'https://spam.example' })
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toBe('/contacts?sent=1')
    expect(await countMessages('contacts')).toBe(before)
  })
})

describe('feedback form', () => {
  test('an empty message answers 400; a bad e-mail and rating are named', async () => {
    const empty = await postForm('/feedback', { message: '', email: '' })
    expect(empty.status).toBe(400)
    expect(textOf(await empty.text())).toContain('Tell us what you think')

    const bad = await postForm('/feedback', { message: 'Nice', email: 'nope', rating: '7' })
    expect(bad.status).toBe(400)
    const text = textOf(await bad.text())
    expect(text).toContain('Enter a valid email address, or leave this field empty')
    expect(text).toContain('Choose a rating from 1 to 5')
  })

  test('feedback with a rating and an e-mail is stored with the rating as its subject', async () => {
    const response = await postForm('/feedback', {
      rating: '4',
      message: 'Stamping is quick.',
      email: 'jo@example.com',
    })
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toBe('/feedback?sent=1')
    const row = await FeedbackMessage.findOne({ where: { source: 'feedback', email: 'jo@example.com' }, raw: true })
    expect(row).toMatchObject({ subject: 'Rating: 4 of 5', message: 'Stamping is quick.', name: null })

    const { html, text } = await getPage('/feedback?sent=1')
    expect(html).toContain('role="status"')
    expect(text).toContain('Thank you for your feedback!')
  })

  test('feedback without a rating or an e-mail is stored with neither', async () => {
    const response = await postForm('/feedback', { message: 'Just a note.', email: '' })
    expect(response.status).toBe(303)
    const row = await FeedbackMessage.findOne({ where: { source: 'feedback', message: 'Just a note.' }, raw: true })
    expect(row).toMatchObject({ subject: null, email: null })
  })

  test('a filled honeypot gets the same confirmation but nothing is stored', async () => {
    const before = await countMessages('feedback')
    const response = await postForm('/feedback', { message: 'Buy cheap watches', website: 'x' })
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toBe('/feedback?sent=1')
    expect(await countMessages('feedback')).toBe(before)
  })

  test('the back link returns to the page the visitor came from on this site', async () => {
    const fromBlog = await server.fetch('/feedback', { headers: { referer: `${server.baseUrl}/blog` } })
    expect(await fromBlog.text()).toMatch(
      /<a[^>]*class="back-link"[^>]*href="\/blog"|href="\/blog"[^>]*class="back-link"/,
    )
    const fromElsewhere = await server.fetch('/feedback', { headers: { referer: 'https://elsewhere.example/blog' } })
    expect(await fromElsewhere.text()).toMatch(/href="\/"[^>]*class="back-link"|class="back-link"[^>]*href="\/"/)
  })
})

describe('rate limit', () => {
  // Runs last in this file: it uses up the hour's allowance of public-form messages for the test's address.
  test('one address stores a limited number of messages an hour, then gets 429 with a message to wait', async () => {
    let status = 303
    for (let attempt = 0; attempt < 30 && status === 303; attempt++) {
      status = (await postForm('/feedback', { message: `Note number ${attempt}` })).status
    }
    expect(status).toBe(429)

    const stored = await countMessages('feedback')
    const refused = await postForm('/feedback', { message: 'One more note' })
    expect(refused.status).toBe(429)
    const html = await refused.text()
    expect(textOf(html)).toMatch(/Too many attempts\. Please try again in \d+ minutes\./)
    expect(html).toContain('One more note')
    expect(await countMessages('feedback')).toBe(stored)
    // The allowance is shared by both public forms.
    expect(
      (await postForm('/contacts', { name: 'A', email: 'a@example.com', subject: 'S', message: 'M' })).status,
    ).toBe(429)
  })
})

describe('the sign-in pages from the public page cache', () => {
  const nonceOf = (html: string) => /<script nonce="([^"]+)"/.exec(html)?.[1]

  test.for(['/login', '/sign-up', '/forgot-password'])(
    '%s: anonymous visitors get the page with a nonce of their own; a signed-in owner is still sent on',
    async (pathname) => {
      const first = await getPage(pathname)
      const second = await getPage(pathname)
      expect(first.status).toBe(200)
      expect(second.status).toBe(200)
      expect(nonceOf(second.html)).toBeTruthy()
      expect(nonceOf(second.html)).not.toBe(nonceOf(first.html))
      expect(second.html.replaceAll(nonceOf(second.html)!, 'N')).toBe(first.html.replaceAll(nonceOf(first.html)!, 'N'))

      // The cache answers only requests without a cookie: a session's is answered by the page's loader.
      const { cookie } = await signedInOwner(server)
      const signedIn = await server.get(pathname, cookie)
      expect(signedIn.status).toBe(302)
    },
  )

  test('a query string is never answered from the cache: redirectTo reaches the form', async () => {
    await getPage('/login')
    const page = await getPage('/login?redirectTo=%2Faccount%2Fprofile')
    expect(page.html).toContain('value="/account/profile"')
  })
})
