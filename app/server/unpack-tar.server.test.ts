import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { unpackTar } from './unpack-tar.server.ts'

const folders: string[] = []
function tempFolder() {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-untar-'))
  folders.push(folder)
  return folder
}
afterEach(() => {
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true })
})

/** A tar made by GNU tar (ustar, as PGlite writes) from `files`: path → content. */
function archiveOf(files: Record<string, string | Buffer>, extra: (dir: string) => void = () => {}) {
  const source = tempFolder()
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(source, name)), { recursive: true })
    fs.writeFileSync(path.join(source, name), content)
  }
  extra(source)
  return new Uint8Array(execFileSync('tar', ['--format=ustar', '-C', source, '-cf', '-', '.']))
}

function listing(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const full = path.join(entry.parentPath, entry.name)
    out[path.relative(dir, full)] = fs.readFileSync(full).toString('base64')
  }
  return out
}

describe('unpackTar', () => {
  test('every file and folder comes out as it went in, sizes on and off the 512-byte blocks', () => {
    const long = `${'deep/'.repeat(25)}file` // over 100 characters: the name goes into ustar's prefix field
    const files = {
      PG_VERSION: '18\n',
      'base/1/112': Buffer.alloc(8192, 7),
      'global/pg_control': Buffer.alloc(513, 1),
      'empty.conf': '',
      [long]: 'far down',
    }
    const target = path.join(tempFolder(), 'pgdata')
    unpackTar(archiveOf(files), target)
    const expected = Object.fromEntries(
      Object.entries(files).map(([name, content]) => [name, Buffer.from(content).toString('base64')]),
    )
    expect(listing(target)).toEqual(expected)
    expect(fs.existsSync(`${target}.unpacking`)).toBe(false)
    expect(fs.statSync(path.join(target, 'base/1/112')).mode & 0o777).toBe(0o600)
  })

  test('the real template unpacks to what tar lists', () => {
    const template = path.resolve('build/embedded-template.tar')
    if (!fs.existsSync(template)) return expect.fail('npm run build writes build/embedded-template.tar first')
    const target = path.join(tempFolder(), 'pgdata')
    unpackTar(new Uint8Array(fs.readFileSync(template)), target)
    // tar -tv: the regular files are the lines that start with '-' (the folders' names carry no slash here).
    const listed = execFileSync('tar', ['-tvf', template], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.startsWith('-'))
      .map((line) => line.split(/\s+/).at(-1)!.replace(/^\//, ''))
      .sort()
    expect(Object.keys(listing(target)).sort()).toEqual(listed)
    expect(fs.readFileSync(path.join(target, 'PG_VERSION'), 'utf8')).toMatch(/^\d+\n$/)
  })

  test('a link is refused and nothing is left in the folder', () => {
    const archive = archiveOf({ a: 'x' }, (dir) => fs.symlinkSync('/etc/passwd', path.join(dir, 'link')))
    const target = path.join(tempFolder(), 'pgdata')
    expect(() => unpackTar(archive, target)).toThrow("tar entry of type '2' is not a file or a folder: ./link")
    expect(fs.existsSync(target)).toBe(false)
  })

  test('a name that climbs out of the folder is refused', () => {
    const archive = archiveOf({ a: 'x' })
    // Rewrite the first file's name to ../escape (same length as ./a plus padding) and fix its checksum.
    const header = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength)
    let offset = 0
    while (header.toString('utf8', offset, offset + 3) !== './a') offset += 512
    header.write('../escape\0', offset, 'utf8')
    header.fill(' ', offset + 148, offset + 156)
    let sum = 0
    for (let i = offset; i < offset + 512; i++) sum += header[i]!
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, offset + 148, 'utf8')
    expect(() => unpackTar(archive, path.join(tempFolder(), 'pgdata'))).toThrow(
      'tar entry outside the folder: ../escape',
    )
  })

  test('a folder that already holds files is never replaced', () => {
    const target = path.join(tempFolder(), 'pgdata')
    fs.mkdirSync(target)
    fs.writeFileSync(path.join(target, 'keep'), 'mine')
    expect(() => unpackTar(archiveOf({ PG_VERSION: '18\n' }), target)).toThrow('is not empty')
    expect(fs.readFileSync(path.join(target, 'keep'), 'utf8')).toBe('mine')
  })
})
