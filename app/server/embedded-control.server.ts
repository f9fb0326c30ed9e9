import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { type ReadableStream } from 'node:stream/web'
import zlib from 'node:zlib'
import type { PGlite } from '@electric-sql/pglite'

/**
 * The control channel of the process that holds an embedded data folder. PGlite lives inside that process, so only
 * it can dump the database while it runs (npm run db:backup). A Unix socket inside DATA_DIR, mode 0600: only who
 * may read the data folder may ask for a copy of it (decision 023).
 *
 * Protocol: the client writes one line, `backup`; the server answers one line, `ok <size of the tar>` followed by
 * the gzipped tar until the end of the stream, or `error <message>`.
 */

const CONTROL_SOCKET = 'stampwise-control.sock'

export function controlSocketPath(dataDir: string) {
  return path.join(path.resolve(dataDir), CONTROL_SOCKET)
}

export type DataFolderDump = { tarBytes: number; gzip: Readable }

/**
 * PGlite's dump of its data folder. dumpDataDir copies the files synchronously while it holds PGlite's query lock,
 * so the copy falls between two statements: an atomic snapshot of the files, which PostgreSQL's WAL recovery makes
 * consistent when it is opened (committed transactions kept, one still open rolled back — the guarantee a crash
 * has, decision 003). Compression runs afterwards, outside the lock: queries wait only for the copy.
 */
export async function dumpDataFolder(db: PGlite): Promise<DataFolderDump> {
  const tar = await db.dumpDataDir('none')
  return {
    tarBytes: tar.size,
    gzip: Readable.fromWeb(tar.stream() as ReadableStream<Uint8Array>).pipe(zlib.createGzip()),
  }
}

/** Serves backups of `db` on DATA_DIR's control socket. The caller holds the data folder's lock. */
export async function startControlServer(dataDir: string, db: PGlite) {
  const socketPath = controlSocketPath(dataDir)
  fs.rmSync(socketPath, { force: true }) // left by a process that died; we hold the lock now
  const connections = new Set<net.Socket>()
  const server = net.createServer((socket) => {
    connections.add(socket)
    socket.once('close', () => connections.delete(socket))
    socket.on('error', () => socket.destroy()) // a client that went away: nothing to answer
    let request = ''
    const onData = (chunk: Buffer) => {
      request += chunk.toString('utf8')
      if (request.length > 100) return void socket.destroy()
      const end = request.indexOf('\n')
      if (end === -1) return
      socket.off('data', onData)
      void answer(socket, request.slice(0, end).trim())
    }
    socket.on('data', onData)
  })

  async function answer(socket: net.Socket, request: string) {
    if (request !== 'backup') return void socket.end(`error unknown request ${JSON.stringify(request.slice(0, 40))}\n`)
    let dump: DataFolderDump
    try {
      dump = await dumpDataFolder(db)
    } catch (error) {
      return void socket.end(`error ${(error instanceof Error ? error.message : String(error)).replace(/\n/g, ' ')}\n`)
    }
    socket.write(`ok ${dump.tarBytes}\n`)
    // A failure mid-stream cuts the connection: the client then sees a short stream and keeps no file.
    await pipeline(dump.gzip, socket).catch(() => socket.destroy())
  }

  // The socket file is created with the umask's mode: make it 0600 from its creation, not a moment later.
  const umask = process.umask(0o177)
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(socketPath, () => resolve())
    })
  } finally {
    process.umask(umask)
  }
  fs.chmodSync(socketPath, 0o600)
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        for (const socket of connections) socket.destroy()
      }),
  }
}

/**
 * True when a process answers on the folder's control socket. The lock file names a pid, which means nothing in
 * another pid namespace (a second container on the same volume): a socket that answers is proof across them.
 */
export function isControlSocketAnswering(dataDir: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(controlSocketPath(dataDir))
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

/** Asks the process holding the data folder for a backup; rejects when none answers or it answers an error. */
export function requestBackup(dataDir: string): Promise<DataFolderDump> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(controlSocketPath(dataDir))
    let header = Buffer.alloc(0)
    const fail = (error: Error) => {
      socket.destroy()
      reject(error)
    }
    const onData = (chunk: Buffer) => {
      header = Buffer.concat([header, chunk])
      const end = header.indexOf(0x0a)
      if (end === -1)
        return header.length > 1000 ? fail(new Error('the server’s answer has no header line')) : undefined
      socket.off('data', onData)
      socket.off('end', onEnd)
      socket.pause()
      const line = header.subarray(0, end).toString('utf8')
      const rest = header.subarray(end + 1)
      const ok = /^ok (\d+)$/.exec(line)
      if (!ok) return fail(new Error(`the server refused the backup: ${line.replace(/^error /, '')}`))
      if (rest.length) socket.unshift(rest)
      resolve({ tarBytes: Number(ok[1]), gzip: socket })
    }
    const onEnd = () => fail(new Error('the server closed the control socket without answering'))
    socket.on('data', onData)
    socket.once('end', onEnd)
    socket.once('error', (error) =>
      fail(new Error(`no answer on the control socket ${controlSocketPath(dataDir)}: ${error.message}`)),
    )
    socket.write('backup\n')
  })
}
