import fs from 'node:fs'
import path from 'node:path'

/**
 * Unpacks a tar archive of plain files and folders (the embedded database's template, written by PGlite's
 * dumpDataDir) into the folder `dir`, which must not exist yet. PGlite can load the template itself, but unpacking
 * it inside its WebAssembly memory grows that memory by ~120 MiB for the life of the process, since a WebAssembly
 * memory never shrinks (docs/decisions/060-memory.md). Anything but a file or a folder, or a name that would leave
 * the folder, is refused: the archive is our own build's, so either means it is not the file we wrote.
 *
 * The files are written into a sibling folder that is renamed to `dir` at the end, so a start that dies halfway
 * leaves no half a database (the next start unpacks again). Like PGlite's own loading, the files are not synced one
 * by one (1,200 fsyncs took 8 s on a busy disk): the kernel writes them within seconds.
 */
export function unpackTar(archive: Uint8Array, dir: string) {
  const target = path.resolve(dir)
  const root = `${target}.unpacking`
  fs.rmSync(root, { recursive: true, force: true })
  const text = (offset: number, length: number) =>
    Buffer.from(archive.subarray(offset, offset + length))
      .toString('utf8')
      .replace(/\0.*$/s, '')
  fs.mkdirSync(root, { recursive: true, mode: 0o700 })
  for (let offset = 0; offset + 512 <= archive.length;) {
    const name = text(offset, 100)
    if (!name) break // two zero blocks end the archive
    const prefix = text(offset + 345, 155)
    const size = parseInt(text(offset + 124, 12).trim() || '0', 8)
    const type = text(offset + 156, 1) || '0'
    const entry = path.resolve(root, `.${path.posix.sep}${prefix ? `${prefix}/` : ''}${name}`)
    if (entry !== root && !entry.startsWith(root + path.sep)) throw new Error(`tar entry outside the folder: ${name}`)
    const data = offset + 512
    if (type === '5') {
      fs.mkdirSync(entry, { recursive: true, mode: 0o700 })
    } else if (type === '0') {
      fs.mkdirSync(path.dirname(entry), { recursive: true, mode: 0o700 })
      fs.writeFileSync(entry, archive.subarray(data, data + size), { mode: 0o600 })
    } else {
      throw new Error(`tar entry of type '${type}' is not a file or a folder: ${name}`)
    }
    offset = data + Math.ceil(size / 512) * 512
  }
  // An empty folder may be there already (made by hand or by an older start); a database never is.
  if (fs.existsSync(target) && fs.readdirSync(target).length > 0)
    throw new Error(`${target} is not empty: a database is unpacked only into a new folder`)
  fs.rmSync(target, { recursive: true, force: true })
  fs.renameSync(root, target)
}
