/** Facts about the company that the public pages and e-mails print. One place to change them. */
export const company = {
  product: 'Stampwise',
  legalName: 'Stampwise Ltd',
  registration:
    'Stampwise Ltd · Registered in England and Wales, company number 15482736 · 71 Shelton Street, London WC2H 9JQ',
  founded: 2024,
  social: [
    { name: 'Facebook', href: 'https://www.facebook.com/stampwise' },
    { name: 'Instagram', href: 'https://www.instagram.com/stampwise' },
    { name: 'LinkedIn', href: 'https://www.linkedin.com/company/stampwise' },
    { name: 'X', href: 'https://x.com/stampwise' },
    { name: 'YouTube', href: 'https://www.youtube.com/@stampwise' },
  ],
} as const
