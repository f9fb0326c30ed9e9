import { execFileSync } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { makeAppleCerts } from './apple-certs.ts'
import { unzip, verifyPkpass, zip } from './pkpass.ts'

// The verifier is checked against a pass signed by openssl itself (not by the code under test).
const certs = makeAppleCerts()

function signedPass(files: Record<string, string>) {
  const manifest = Object.fromEntries(
    Object.entries(files).map(([name, text]) => [name, crypto.createHash('sha1').update(text).digest('hex')]),
  )
  const manifestJson = Buffer.from(JSON.stringify(manifest))
  const dir = fs.mkdtempSync(path.join(certs.dir, 'sign-'))
  fs.writeFileSync(path.join(dir, 'manifest.json'), manifestJson)
  fs.writeFileSync(path.join(dir, 'pass.pem'), certs.certPem)
  fs.writeFileSync(path.join(dir, 'key.pem'), certs.keyPem)
  fs.writeFileSync(path.join(dir, 'wwdr.pem'), certs.wwdrPem)
  execFileSync('openssl', ['cms', '-sign', '-binary', '-in', 'manifest.json', '-signer', 'pass.pem', '-inkey',
    'key.pem', '-certfile', 'wwdr.pem', '-outform', 'DER', '-out', 'signature'], { cwd: dir }) // prettier-ignore
  const entries = new Map(Object.entries(files).map(([name, text]) => [name, Buffer.from(text)]))
  entries.set('manifest.json', manifestJson)
  entries.set('signature', fs.readFileSync(path.join(dir, 'signature')))
  return entries
}

describe('verifyPkpass', () => {
  const files = signedPass({ 'pass.json': '{"serialNumber":"p1"}', 'icon.png': 'icon bytes' })

  test('accepts a well-signed pass and reads its files', () => {
    const { files: read, passJson } = verifyPkpass(zip(files), certs.caPath)
    expect(passJson).toEqual({ serialNumber: 'p1' })
    expect(read.get('icon.png')?.toString()).toBe('icon bytes')
  })

  test('refuses a tampered file, a file not in the manifest, a missing file and a tampered manifest', () => {
    const tampered = new Map(files).set('icon.png', Buffer.from('other bytes'))
    expect(() => verifyPkpass(zip(tampered), certs.caPath)).toThrow('icon.png does not match its hash')
    const extra = new Map(files).set('logo.png', Buffer.from('logo'))
    expect(() => verifyPkpass(zip(extra), certs.caPath)).toThrow('logo.png is not in manifest.json')
    const missing = new Map(files)
    missing.delete('icon.png')
    expect(() => verifyPkpass(zip(missing), certs.caPath)).toThrow('lists icon.png')
    const manifest = JSON.parse(files.get('manifest.json')!.toString()) as Record<string, string>
    const forged = new Map(files)
      .set('icon.png', Buffer.from('forged'))
      .set('manifest.json', Buffer.from(JSON.stringify({ ...manifest, 'icon.png': sha1('forged') })))
    expect(() => verifyPkpass(zip(forged), certs.caPath)).toThrow('the signature does not verify')
  })

  test('refuses a signature that does not chain to the trusted CA', () => {
    const otherCa = path.join(certs.dir, 'wwdr.pem') // an intermediate alone is not a trusted root
    expect(() => verifyPkpass(zip(files), otherCa)).toThrow('the signature does not verify')
  })

  test('reads deflated entries too, and refuses one that fails its CRC', () => {
    const archive = zip(new Map(files), { deflate: true })
    expect(verifyPkpass(archive, certs.caPath).passJson).toEqual({ serialNumber: 'p1' })
    const crcAt = archive.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 16
    archive.writeUInt8(archive.readUInt8(crcAt) ^ 1, crcAt)
    expect(() => unzip(archive)).toThrow('fails its CRC')
  })
})

const sha1 = (text: string) => crypto.createHash('sha1').update(text).digest('hex')
