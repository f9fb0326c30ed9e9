import { execFileSync } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import zlib from 'node:zlib'

/**
 * Checks a .pkpass as Wallet does before it accepts one: a zip whose manifest.json lists the SHA-1 of every other file
 * (and nothing else), and a detached PKCS#7 signature of manifest.json that chains to a trusted root (here the test
 * CA, through the WWDR certificate the signature carries), verified by the real `openssl cms -verify`.
 */

/** The files of a zip (stored or deflated entries, as every zip writer makes them), read from its central directory. */
export function unzip(zip: Buffer): Map<string, Buffer> {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]))
  if (end < 0) throw new Error('not a zip: no end of central directory')
  const count = zip.readUInt16LE(end + 10)
  let at = zip.readUInt32LE(end + 16)
  const files = new Map<string, Buffer>()
  for (let index = 0; index < count; index++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`zip: bad central directory entry ${index}`)
    const method = zip.readUInt16LE(at + 10)
    const crc = zip.readUInt32LE(at + 16)
    const compressedSize = zip.readUInt32LE(at + 20)
    const nameLength = zip.readUInt16LE(at + 28)
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32)
    const local = zip.readUInt32LE(at + 42)
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength)
    if (zip.readUInt32LE(local) !== 0x04034b50) throw new Error(`zip: bad local header for ${name}`)
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28)
    const raw = zip.subarray(start, start + compressedSize)
    if (method !== 0 && method !== 8) throw new Error(`zip: ${name} uses compression method ${method}`)
    const data = method === 8 ? zlib.inflateRawSync(raw) : Buffer.from(raw)
    if (zlib.crc32(data) !== crc) throw new Error(`zip: ${name} fails its CRC`)
    if (files.has(name)) throw new Error(`zip: ${name} appears twice`)
    files.set(name, data)
    at += 46 + skip
  }
  return files
}

function checkManifest(files: Map<string, Buffer>) {
  const manifestFile = files.get('manifest.json')
  if (!manifestFile) throw new Error('pkpass: no manifest.json')
  if (!files.has('signature')) throw new Error('pkpass: no signature')
  const manifest = JSON.parse(manifestFile.toString('utf8')) as Record<string, string>
  for (const [name, data] of files) {
    if (name === 'manifest.json' || name === 'signature' || name.endsWith('/')) continue
    const hash = crypto.createHash('sha1').update(data).digest('hex')
    if (manifest[name] === undefined) throw new Error(`pkpass: ${name} is not in manifest.json`)
    if (manifest[name] !== hash) throw new Error(`pkpass: ${name} does not match its hash in manifest.json`)
  }
  for (const name of Object.keys(manifest)) {
    if (!files.has(name)) throw new Error(`pkpass: manifest.json lists ${name}, which is not in the pass`)
  }
}

function verifySignature(manifest: Buffer, signature: Buffer, caPath: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stampwise-pkpass-'))
  try {
    fs.writeFileSync(path.join(dir, 'manifest.json'), manifest)
    fs.writeFileSync(path.join(dir, 'signature'), signature)
    execFileSync(
      'openssl',
      ['cms', '-verify', '-binary', '-inform', 'DER', '-in', 'signature', '-content', 'manifest.json',
        '-CAfile', path.resolve(caPath), '-purpose', 'any', '-out', path.join(dir, 'verified')], // prettier-ignore
      { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
    )
  } catch (error) {
    const stderr = String((error as { stderr?: Buffer }).stderr ?? '')
    throw new Error(`pkpass: the signature does not verify: ${stderr.split('\n').slice(0, 3).join(' ')}`)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** Unzips and verifies a .pkpass against the CA at caPath; throws on any mismatch. */
export function verifyPkpass(pkpass: Buffer, caPath: string) {
  const files = unzip(pkpass)
  checkManifest(files)
  verifySignature(files.get('manifest.json')!, files.get('signature')!, caPath)
  const passJson = files.get('pass.json')
  if (!passJson) throw new Error('pkpass: no pass.json')
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- pass.json is Apple's open-ended JSON
  return { files, passJson: JSON.parse(passJson.toString('utf8')) as any }
}

/** A zip with the given files (stored, or deflated): to make tampered passes from a verified one's files. */
export function zip(files: Map<string, Buffer>, { deflate = false } = {}): Buffer {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const [name, content] of files) {
    const nameBytes = Buffer.from(name, 'utf8')
    const crc = zlib.crc32(content)
    const data = deflate ? zlib.deflateRawSync(content) : content
    const method = deflate ? 8 : 0
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt16LE(method, 8)
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(data.length, 18)
    local.writeUInt32LE(content.length, 22)
    local.writeUInt16LE(nameBytes.length, 26)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(20, 4)
    central.writeUInt16LE(20, 6)
    central.writeUInt16LE(method, 10)
    central.writeUInt32LE(crc, 16)
    central.writeUInt32LE(data.length, 20)
    central.writeUInt32LE(content.length, 24)
    central.writeUInt16LE(nameBytes.length, 28)
    central.writeUInt32LE(offset, 42)
    locals.push(local, nameBytes, data)
    centrals.push(central, nameBytes)
    offset += 30 + nameBytes.length + data.length
  }
  const directory = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(files.size, 8)
  end.writeUInt16LE(files.size, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directory, end])
}
