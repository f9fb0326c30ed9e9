import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import { afterEach, beforeEach, describe, expect, test, vi, type MockInstance } from 'vitest'
import { loadAppleWalletConfig } from '#app/server/apple-wallet-config.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
import { makeAppleCerts } from '#tests/support/apple-certs.ts'
import { verifyPkpass, zip } from '#tests/support/pkpass.ts'
import { buildApplePass, type ApplePassContent } from './apple-pass.server.ts'

const certs = makeAppleCerts()
const config = loadAppleWalletConfig(parseEnv(certs.env()))!
const options = { appUrl: 'https://stamps.example.com', authenticationToken: 'token-of-pass-1-0123456789abcdef' }

let cardVersion = 0
function content(changes: Partial<ApplePassContent> = {}, card: Partial<ApplePassContent['card']> = {}) {
  return {
    passId: 'pass-1',
    shortCode: 'K7QX2M9P',
    stamps: 3,
    stampsRequired: 8,
    latestMessage: null,
    locations: [],
    voided: false,
    ...changes,
    card: {
      // A new version for every test card: images are kept per card version.
      id: 'card-1',
      version: ++cardVersion,
      title: 'Coffee card',
      businessName: 'Bean There',
      backgroundColor: '#1e3a5f',
      textColor: '#ffffff',
      stampIcon: 'coffee',
      reward: 'A free coffee',
      terms: 'One stamp per visit.',
      stampPushOn: true,
      logo: null,
      ...card,
    },
  } satisfies ApplePassContent
}

async function build(passContent: ApplePassContent) {
  const pkpass = await buildApplePass(passContent, config, options)
  return verifyPkpass(pkpass, certs.caPath)
}

// passkit-generator drops what it finds invalid with a console.warn: a pass that builds must not warn.
let warn: MockInstance<typeof console.warn>
beforeEach(() => {
  warn = vi.spyOn(console, 'warn')
})
afterEach(() => {
  const warnings = warn.mock.calls
  warn.mockRestore()
  expect(warnings).toEqual([])
})

const SIZES = { icon: [29, 29], logo: [160, 50], strip: [375, 144] } as const
const SCALES = { '': 1, '@2x': 2, '@3x': 3 }

describe('buildApplePass', () => {
  test('a signed storeCard whose pass.json is as docs/product/wallets.md says', async () => {
    const { files, passJson } = await build(content())
    expect([...files.keys()].sort()).toEqual(
      ['icon', 'logo', 'strip']
        .flatMap((name) => [`${name}.png`, `${name}@2x.png`, `${name}@3x.png`])
        .concat(['manifest.json', 'pass.json', 'signature'])
        .sort(),
    )
    expect(passJson).toEqual({
      formatVersion: 1,
      passTypeIdentifier: 'pass.test.stampwise',
      teamIdentifier: 'TEAM123456',
      serialNumber: 'pass-1',
      organizationName: 'Bean There',
      description: 'Coffee card',
      backgroundColor: 'rgb(30, 58, 95)',
      foregroundColor: 'rgb(255, 255, 255)',
      labelColor: 'rgb(255, 255, 255)',
      logoText: 'Bean There',
      sharingProhibited: true,
      barcodes: [
        { format: 'PKBarcodeFormatQR', message: 'K7QX2M9P', messageEncoding: 'iso-8859-1', altText: 'K7QX2M9P' },
      ],
      webServiceURL: 'https://stamps.example.com/wallet/apple',
      authenticationToken: options.authenticationToken,
      storeCard: {
        headerFields: [],
        primaryFields: [{ key: 'stamps', label: 'Stamps', value: '3 of 8', changeMessage: 'Stamps: %@' }],
        secondaryFields: [{ key: 'reward', label: 'Reward', value: 'A free coffee' }],
        auxiliaryFields: [],
        backFields: [
          { key: 'terms', label: 'Terms', value: 'One stamp per visit.' },
          {
            key: 'message',
            label: 'Message',
            value: 'Messages from Bean There will show here.',
            changeMessage: '%@',
          },
          {
            key: 'web',
            label: 'Your card online',
            value: 'https://stamps.example.com/p/pass-1',
            attributedValue: '<a href="https://stamps.example.com/p/pass-1">https://stamps.example.com/p/pass-1</a>',
          },
        ],
      },
    })
  })

  test('the zip is one Info-ZIP reads without an error', async () => {
    const file = path.join(certs.dir, 'built.pkpass')
    fs.writeFileSync(file, await buildApplePass(content(), config, options))
    expect(execFileSync('unzip', ['-tq', file], { encoding: 'utf8' })).toMatch(/No errors detected/)
  })

  test("every image is a PNG at Apple's pixel sizes", async () => {
    const { files } = await build(content())
    for (const [name, [width, height]] of Object.entries(SIZES)) {
      for (const [suffix, scale] of Object.entries(SCALES)) {
        const meta = await sharp(files.get(`${name}${suffix}.png`)!).metadata()
        expect(meta.format, `${name}${suffix}`).toBe('png')
        expect(meta.height, `${name}${suffix}`).toBe(height * scale)
        // The logo drawn from the stamp icon (no logo uploaded) is square.
        expect(meta.width, `${name}${suffix}`).toBe((name === 'logo' ? height : width) * scale)
      }
    }
  })

  test("the card's logo, uploaded as JPEG or WebP, becomes a PNG that fits 160×50 points", async () => {
    const wide = await sharp({ create: { width: 800, height: 200, channels: 3, background: '#c0392b' } })
      .jpeg()
      .toBuffer()
    const tall = await sharp({ create: { width: 100, height: 300, channels: 4, background: '#27ae6080' } })
      .webp()
      .toBuffer()
    const fromJpeg = await build(content({}, { logo: { data: wide, contentType: 'image/jpeg' } }))
    const fromWebp = await build(content({}, { logo: { data: tall, contentType: 'image/webp' } }))
    for (const [suffix, scale] of Object.entries(SCALES)) {
      const jpegLogo = await sharp(fromJpeg.files.get(`logo${suffix}.png`)!).metadata()
      expect([jpegLogo.format, jpegLogo.width, jpegLogo.height]).toEqual(['png', 160 * scale, 40 * scale])
      const webpLogo = await sharp(fromWebp.files.get(`logo${suffix}.png`)!).metadata()
      expect([webpLogo.format, webpLogo.height, webpLogo.hasAlpha]).toEqual(['png', 50 * scale, true])
      expect(webpLogo.width).toBeLessThanOrEqual(17 * scale)
    }
    const { data } = await sharp(fromJpeg.files.get('logo.png')!).raw().toBuffer({ resolveWithObject: true })
    // JPEG is lossy: the logo's red, within a few steps.
    const red = [0xc0, 0x39, 0x2b]
    data.subarray(0, 3).forEach((value, channel) => expect(Math.abs(value - red[channel]!)).toBeLessThan(4))
  })

  test('the strip draws the collected stamps, capped at the number required', async () => {
    const strip = async (stamps: number, stampsRequired: number) =>
      (await build(content({ stamps, stampsRequired }, { id: 'card-strip', version: 1 }))).files.get('strip@2x.png')!
    const [none, one, all, over] = await Promise.all([strip(0, 8), strip(1, 8), strip(8, 8), strip(11, 8)])
    expect(one.equals(none)).toBe(false)
    expect(all.equals(one)).toBe(false)
    expect(over.equals(all)).toBe(true)
    for (const required of [1, 7, 20]) {
      const meta = await sharp(await strip(required - 1, required)).metadata()
      expect([meta.width, meta.height]).toEqual([750, 288])
    }
  })

  test("the stamps' changeMessage only while the card's stamp push is on; the reward once earned", async () => {
    const quiet = await build(content({ stamps: 8 }, { stampPushOn: false }))
    expect(quiet.passJson.storeCard.primaryFields).toEqual([{ key: 'stamps', label: 'Stamps', value: '8 of 8' }])
    expect(quiet.passJson.storeCard.secondaryFields).toEqual([
      { key: 'reward', label: 'Reward', value: 'Reward earned: A free coffee' },
    ])
  })

  test('the latest message is a back field with a changeMessage (the lock-screen notice); voided when ended', async () => {
    const { passJson } = await build(content({ latestMessage: 'Double stamps today!', voided: true }))
    expect(passJson.voided).toBe(true)
    expect(passJson.storeCard.backFields.map((field: { key: string }) => field.key)).toEqual([
      'terms',
      'message',
      'web',
    ])
    expect(passJson.storeCard.backFields[1]).toEqual({
      key: 'message',
      label: 'Message',
      value: 'Double stamps today!',
      changeMessage: '%@',
    })
    const plain = await build(content())
    expect(plain.passJson.voided).toBeUndefined()
  })

  test('locations: each with the lock-screen text, at most 10, none when there are none', async () => {
    const places = Array.from({ length: 12 }, (_, index) => ({ latitude: 38.7 + index / 100, longitude: -9.14 }))
    const { passJson } = await build(content({ locations: places }))
    expect(passJson.locations).toHaveLength(10)
    expect(passJson.locations[0]).toEqual({
      latitude: 38.7,
      longitude: -9.14,
      relevantText: 'Bean There is nearby — show your card',
    })
    expect(passJson.locations[9].latitude).toBeCloseTo(38.79)
    expect((await build(content())).passJson.locations).toBeUndefined()
    const untitled = await build(content({ locations: places.slice(0, 1) }, { businessName: '' }))
    expect(untitled.passJson.locations[0].relevantText).toBe('Coffee card is nearby — show your card')
  })

  test('without a business name the organisation is the card title; a passphrase-protected key signs too', async () => {
    const encrypted = loadAppleWalletConfig(
      parseEnv({ ...certs.env(), APPLE_PASS_KEY: certs.encryptedKeyPem, APPLE_PASS_KEY_PASSPHRASE: certs.passphrase }),
    )!
    const pkpass = await buildApplePass(content({}, { businessName: ' ' }), encrypted, options)
    expect(verifyPkpass(pkpass, certs.caPath).passJson.organizationName).toBe('Coffee card')
  })

  test('a pass.json that passkit-generator refuses fails the build instead of making a pass without fields', async () => {
    warn.mockImplementation(() => {})
    await expect(buildApplePass(content({ shortCode: '' }), config, options)).rejects.toThrow(
      'passkit-generator refused the pass.json of pass pass-1',
    )
    expect(warn).toHaveBeenCalled()
    warn.mockClear()
  })

  test('a card without a title yet still makes a valid pass', async () => {
    const { passJson } = await build(content({}, { title: '', businessName: '' }))
    expect([passJson.organizationName, passJson.description]).toEqual(['Stampwise', 'Stamp card'])
    expect(passJson.logoText).toBe('Stampwise')
  })

  test('a tampered pass fails verification', async () => {
    const { files } = await build(content())
    const passJson = JSON.parse(files.get('pass.json')!.toString())
    passJson.storeCard.primaryFields[0].value = '8 of 8'
    const tampered = new Map(files).set('pass.json', Buffer.from(JSON.stringify(passJson)))
    expect(() => verifyPkpass(zip(tampered), certs.caPath)).toThrow('pass.json does not match its hash')
    const noisyIcon = new Map(files).set('icon.png', Buffer.concat([files.get('icon.png')!, Buffer.from([0])]))
    expect(() => verifyPkpass(zip(noisyIcon), certs.caPath)).toThrow('icon.png does not match its hash')
  })
})
