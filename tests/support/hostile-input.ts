import fc from 'fast-check'

/**
 * fast-check arbitraries for hostile request bodies (issue #8, "Bad input"): strings nobody types, values of the
 * wrong type, fields missing or sent twice, bodies in the wrong encoding or not parseable at all. A body is kept
 * as a description (`HostileBody`) and encoded by `encodeBody`, so a failure prints what was sent in a readable form.
 */

/** Strings that have broken web apps before: control bytes, unicode edge cases, injection fragments, odd numbers. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'Corner\u0000Coffee',
  '\r\n\t',
  '\u202eevil\u202c', // right-to-left override
  'مقهى الزاوية', // right-to-left text
  '\u200b\u200c\u200d\ufeff', // zero-width characters and a byte-order mark
  '👩‍👩‍👧‍👦🏳️‍🌈👍🏽',
  '\ud800', // lone surrogates: not valid UTF-16, cannot be encoded as UTF-8
  'a\udfffb',
  'Z̷̛͓̈́a̸̱̒l̷̰̈g̶̣̈́o̵̗͠',
  '\u{10ffff}\ufffe\uffff',
  "' OR 1=1 --",
  "'; DROP TABLE users; --",
  '" OR ""="',
  '1; select pg_sleep(5)',
  '\\',
  '%',
  '%00',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  '{{7*7}}${7*7}',
  '../../../../etc/passwd',
  'javascript:alert(1)',
  'https://evil.example/',
  '//evil.example',
  'NaN',
  'Infinity',
  '-1',
  '0',
  '1.5',
  '1e309',
  '99999999999999999999',
  '-2147483649',
  '0x10',
  'true',
  'null',
  'undefined',
  '[]',
  '{}',
  '__proto__',
  '00000000-0000-0000-0000-000000000000',
  'on',
  'ö@ü.de',
  'a@b',
  'x'.repeat(300) + '@example.com',
] as const

/** Something the app accepts in a field, with a hostile part inside it, so the value passes the first checks. */
const embedded = fc
  .tuple(
    fc.constantFrom('Corner ', 'ann@example.com', 'A free coffee', 'Stamp.card1'),
    fc.constantFrom(...NASTY_STRINGS),
  )
  .map(([valid, nasty]) => (valid.includes('@') ? nasty + valid : valid + nasty))

/** About a megabyte (or a few hundred kilobytes of multi-byte characters). */
const HUGE_UNITS = ['x', 'é', '😀', '\u0000', '<a>', '%', '\u200b'] as const
export const hugeString = fc.constantFrom(...HUGE_UNITS).map((unit) => unit.repeat(Math.ceil(1_000_000 / unit.length)))

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 3, arbitrary: embedded },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', minLength: 100, maxLength: 3000 }) },
  { weight: 1, arbitrary: hugeString },
)

/** A JSON value of any type, nested a little or a lot. */
export const hostileJsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { weight: 6, arbitrary: hostileString },
    { weight: 1, arbitrary: fc.integer() },
    { weight: 1, arbitrary: fc.constantFrom(0, -1, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 31) },
    { weight: 1, arbitrary: fc.boolean() },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 3 }) },
    {
      weight: 1,
      arbitrary: fc.dictionary(fc.constantFrom('a', '__proto__', 'constructor', 'p256dh', 'auth'), tie('value'), {
        maxKeys: 3,
      }),
    },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 3000 }).map((depth) => new DeeplyNested(depth)) },
  ),
})).value

/**
 * `{"a":[{"a":[…"deep"…]}]}`, `depth` levels down. Built only when the body is encoded: fast-check prints the
 * values it generates by recursing into them, which a few thousand levels would overflow.
 */
class DeeplyNested {
  constructor(readonly depth: number) {}
  toJSON(): unknown {
    let value: unknown = 'deep'
    for (let level = 0; level < this.depth; level++) value = level % 2 ? [value] : { a: value }
    return value
  }
  [fc.toStringMethod]() {
    return `<JSON nested ${this.depth} levels deep>`
  }
}

export type Upload = { filename: string; contentType: string; bytes: Uint8Array }
export type FieldValue = string | Upload
export type HostileBody =
  /** Fields in order; a key may repeat (a duplicate field). */
  | { encoding: 'urlencoded' | 'multipart'; fields: [string, FieldValue][] }
  | { encoding: 'json'; value: unknown }
  /** Exactly these bytes, under this Content-Type (none when null). */
  | { encoding: 'raw'; contentType: string | null; text: string }

const RAW_BODIES: { contentType: string | null; text: string }[] = [
  { contentType: 'application/json', text: '{"email": "ann@example.com", ' }, // cut off
  { contentType: 'application/json', text: "{'single': 'quotes'}" },
  { contentType: 'application/json', text: '[1, 2, 3]' },
  { contentType: 'application/json', text: '"just a string"' },
  { contentType: 'application/json', text: 'null' },
  { contentType: 'application/json', text: '{"a": 1, "a": 2}' },
  { contentType: 'application/json', text: '['.repeat(100_000) },
  { contentType: 'application/json', text: `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}` },
  { contentType: 'application/json', text: '\ufeff{"email": "ann@example.com"}' },
  { contentType: 'application/x-www-form-urlencoded', text: 'email=%E0%A4%A&message=%&intent=%ZZ&=&&=x' },
  { contentType: 'application/x-www-form-urlencoded', text: 'message=%ED%A0%80%C0%AF%FF%FE&title=%00' }, // invalid UTF-8
  { contentType: 'application/x-www-form-urlencoded', text: 'a[b][c]=1&a[]=2&__proto__[x]=1&constructor=1' },
  { contentType: 'multipart/form-data', text: 'no boundary at all' },
  {
    contentType: 'multipart/form-data; boundary=XYZ',
    text: '--XYZ\r\nContent-Disposition: form-data; name="message"\r\n\r\ncut off',
  },
  {
    contentType: 'multipart/form-data; boundary=XYZ',
    text: '--XYZ\r\nContent-Disposition: form-data\r\n\r\nnameless\r\n--XYZ--\r\n',
  },
  { contentType: 'multipart/form-data; boundary=', text: '--\r\n\r\n' },
  { contentType: 'text/plain', text: 'email=ann@example.com' },
  {
    contentType: 'application/xml',
    text: '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>',
  },
  { contentType: 'application/octet-stream', text: '\u0000\u0001\u00ff\ufffd' },
  { contentType: 'image/png', text: '\u0089PNG' },
  { contentType: 'application/x-www-form-urlencoded; charset=utf-16', text: 'message=hello' },
  { contentType: 'application/json; charset=latin1', text: '{"message": "caf\u00e9"}' },
  { contentType: 'text/html; charset=utf-8', text: '<form>' },
  { contentType: '', text: 'message=hello' },
  { contentType: null, text: 'message=hello' },
  { contentType: null, text: '' },
  { contentType: 'application/x-www-form-urlencoded', text: '' },
  { contentType: 'application/json', text: '' },
  { contentType: ';;;===', text: '{}' },
]

/** The wrong content types and unparseable bodies every action gets, whatever its fields. */
export const rawBodies = (): HostileBody[] => RAW_BODIES.map((raw) => ({ encoding: 'raw', ...raw }))

const TRUNCATED_PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48])
const hostileUpload: fc.Arbitrary<Upload> = fc.record({
  filename: fc.constantFrom('logo.png', '../../etc/passwd', 'a\u0000.png', '😀.png', '', 'x'.repeat(500)),
  contentType: fc.constantFrom('image/png', 'text/html', 'application/x-msdownload', ''),
  bytes: fc.oneof(
    fc.uint8Array({ maxLength: 64 }),
    fc.constant(TRUNCATED_PNG),
    fc.constant(new TextEncoder().encode('<svg onload=alert(1)>')),
  ),
})

/** Field names worth trying on any route besides its own. */
const STRANGER_KEYS = [
  'intent',
  '__proto__',
  'constructor',
  'toString',
  '',
  'a[b]',
  '_data',
  'x'.repeat(1000),
  '\u0000',
  'é',
]

/**
 * Bodies for one action: starting from its valid `base` (or nothing), fields dropped, replaced by hostile values
 * or sent twice, in one of the encodings the web uses.
 */
export function hostileBody({
  fields,
  intents,
  base,
}: {
  fields: readonly string[]
  intents: readonly string[]
  base: Record<string, string>
}) {
  const key = fc.oneof(
    { weight: 4, arbitrary: fields.length ? fc.constantFrom(...fields) : fc.constantFrom(...STRANGER_KEYS) },
    { weight: 1, arbitrary: fc.constantFrom(...STRANGER_KEYS) },
  )
  const value: fc.Arbitrary<string> = intents.length
    ? fc.oneof({ weight: 4, arbitrary: hostileString }, { weight: 1, arbitrary: fc.constantFrom(...intents) })
    : hostileString
  const change = fc.record({ key, value, duplicate: fc.boolean() })
  return fc
    .record({
      fromBase: fc.boolean(),
      drop: fc.subarray([...Object.keys(base)]),
      changes: fc.array(change, { minLength: 1, maxLength: 4 }),
      encoding: fc.constantFrom('urlencoded', 'multipart', 'json', 'json'),
      jsonValues: fc.array(hostileJsonValue, { minLength: 4, maxLength: 4 }),
      upload: fc.option(hostileUpload, { nil: undefined }),
    })
    .map(({ fromBase, drop, changes, encoding, jsonValues, upload }): HostileBody => {
      const start: [string, FieldValue][] = fromBase
        ? Object.entries(base).filter(([name]) => !drop.includes(name))
        : []
      const entries = [...start]
      for (const { key: name, value: text, duplicate } of changes) {
        const at = entries.findIndex(([existing]) => existing === name)
        if (duplicate || at === -1) entries.push([name, text])
        else entries[at] = [name, text]
      }
      if (encoding === 'json') {
        // The same fields, some of them turned into values of another type.
        const object: Record<string, unknown> = {}
        entries.forEach(([name, text], index) => {
          object[name] = index < jsonValues.length && index % 2 === 1 ? jsonValues[index] : text
        })
        return { encoding, value: object }
      }
      if (encoding === 'multipart' && upload)
        entries.push([fields.includes('logo') ? 'logo' : (fields[0] ?? 'file'), upload])
      return { encoding, fields: entries }
    })
}

/**
 * Percent-encodes every UTF-16 unit as WTF-8, so lone surrogates reach the server as the bytes a broken client sends.
 */
function percentEncode(text: string) {
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    const next = text.charCodeAt(i + 1)
    let point = unit
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      point = 0x10000 + ((unit - 0xd800) << 10) + (next - 0xdc00)
      i++
    }
    if (point < 0x80 && /[A-Za-z0-9_.~-]/.test(String.fromCharCode(point))) {
      out += String.fromCharCode(point)
      continue
    }
    const bytes =
      point < 0x80
        ? [point]
        : point < 0x800
          ? [0xc0 | (point >> 6), 0x80 | (point & 63)]
          : point < 0x10000
            ? [0xe0 | (point >> 12), 0x80 | ((point >> 6) & 63), 0x80 | (point & 63)]
            : [0xf0 | (point >> 18), 0x80 | ((point >> 12) & 63), 0x80 | ((point >> 6) & 63), 0x80 | (point & 63)]
    out += bytes.map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('')
  }
  return out
}

const BOUNDARY = '----StampwiseFuzzBoundary7MA4YWxkTrZu0gW'

/** The request body and Content-Type for a hostile body. */
export function encodeBody(body: HostileBody): {
  contentType: string | null
  payload: Uint8Array<ArrayBuffer> | string
} {
  switch (body.encoding) {
    case 'raw':
      return { contentType: body.contentType, payload: body.text }
    case 'json':
      return { contentType: 'application/json', payload: JSON.stringify(body.value) }
    case 'urlencoded': {
      const text = body.fields
        .map(
          ([name, value]) =>
            `${percentEncode(name)}=${percentEncode(typeof value === 'string' ? value : value.filename)}`,
        )
        .join('&')
      return { contentType: 'application/x-www-form-urlencoded', payload: text }
    }
    case 'multipart': {
      const encoder = new TextEncoder()
      const parts: Uint8Array[] = []
      for (const [name, value] of body.fields) {
        const quotedName = name.replace(/"/g, '%22').replace(/\r|\n/g, ' ')
        if (typeof value === 'string') {
          parts.push(
            encoder.encode(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${quotedName}"\r\n\r\n${value}\r\n`),
          )
        } else {
          const filename = value.filename.replace(/"/g, '%22').replace(/\r|\n/g, ' ')
          const type = value.contentType ? `Content-Type: ${value.contentType}\r\n` : ''
          parts.push(
            encoder.encode(
              `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${quotedName}"; filename="${filename}"\r\n${type}\r\n`,
            ),
          )
          parts.push(value.bytes, encoder.encode('\r\n'))
        }
      }
      parts.push(encoder.encode(`--${BOUNDARY}--\r\n`))
      return { contentType: `multipart/form-data; boundary=${BOUNDARY}`, payload: new Uint8Array(Buffer.concat(parts)) }
    }
  }
}

/** A short description of a body for failure messages (a megabyte of "x" is not worth printing). */
export function describeBody(body: HostileBody): string {
  const clip = (text: string) =>
    text.length > 80 ? `${JSON.stringify(text.slice(0, 40))}…(${text.length} chars)` : JSON.stringify(text)
  switch (body.encoding) {
    case 'raw':
      return `raw ${body.contentType ?? '(no Content-Type)'} ${clip(body.text)}`
    case 'json':
      return `json ${clip(JSON.stringify(body.value) ?? '')}`
    default:
      return `${body.encoding} ${body.fields.map(([name, value]) => `${clip(name)}=${typeof value === 'string' ? clip(value) : `file(${value.filename}, ${value.bytes.length} B)`}`).join(' & ')}`
  }
}
