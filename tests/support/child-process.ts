import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { recordErrorLog } from './error-logs.ts'

/**
 * Child processes for tests that need a real process: one that holds a data folder, is killed with SIGKILL,
 * or is stopped with SIGTERM. Every child started here is killed by `killChildren()` if the test left it running.
 */

export type Exit = { code: number | null; signal: NodeJS.Signals | null }

export type Child = {
  process: ChildProcess
  pid: number
  /** Complete lines written to stdout so far. */
  lines: string[]
  stdout: () => string
  stderr: () => string
  exited: Promise<Exit>
  /** Resolves with the first stdout line that matches; rejects when the process exits first or time runs out. */
  waitForLine: (match: (line: string) => boolean, timeoutMs?: number) => Promise<string>
}

const running = new Set<ChildProcess>()

// The variables vitest and the integration setup put in this process; a child gets only what the test gives it.
const NOT_INHERITED = /^(VITEST|TEST_|STAMPWISE_|DATA_DIR$|DATABASE_URL$|NODE_ENV$|LOG_LEVEL$|PORT$|APP_URL$)/

export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !NOT_INHERITED.test(name)))
  return { ...base, NODE_ENV: 'test', ...env }
}

/** Runs a TypeScript file of this repository with `node --import tsx`. */
export function runTs(script: string, { env = {}, args = [] }: { env?: Record<string, string>; args?: string[] } = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(script), ...args], {
    cwd: path.resolve('.'),
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.add(child)
  let out = ''
  let err = ''
  let errPartial = ''
  const lines: string[] = []
  const listeners = new Set<() => void>()
  let partial = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk
    const parts = (partial + chunk).split('\n')
    partial = parts.pop()!
    lines.push(...parts)
    for (const listener of listeners) listener()
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk
    // The app logger's error lines (JSON under tests) fail the test like its own (tests/setup/fail-on-error-log.ts).
    const parts = (errPartial + chunk).split('\n')
    errPartial = parts.pop()!
    for (const line of parts) if (line.startsWith('{"level":')) recordErrorLog(line, script)
  })
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child)
      // 'exit' can come before the last output: wait for the pipes to close too.
      child.once('close', () => resolve({ code, signal }))
      for (const listener of listeners) listener()
    })
  })
  let hasExited = false
  void exited.then(() => {
    hasExited = true
    for (const listener of listeners) listener()
  })

  const waitForLine = (match: (line: string) => boolean, timeoutMs = 30_000) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        listeners.delete(check)
        reject(new Error(`no matching line from ${script} within ${timeoutMs} ms; stderr: ${err.slice(-2000)}`))
      }, timeoutMs)
      function check() {
        const found = lines.find(match)
        if (found !== undefined || hasExited) {
          clearTimeout(timer)
          listeners.delete(check)
          if (found !== undefined) resolve(found)
          else reject(new Error(`${script} exited before printing the expected line; stderr: ${err.slice(-2000)}`))
        }
      }
      listeners.add(check)
      check()
    })

  return {
    process: child,
    pid: child.pid!,
    lines,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForLine,
  } satisfies Child
}

/** Kills what a test left running, and waits until the processes are gone (so their pids are dead). */
export async function killChildren() {
  const left = [...running]
  await Promise.all(
    left.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve()
          child.once('exit', () => resolve())
          child.kill('SIGKILL')
        }),
    ),
  )
}

/** Runs a TypeScript file to its end (a command); returns its exit code and output. */
export async function runTsToEnd(script: string, options: Parameters<typeof runTs>[1] = {}) {
  const child = runTs(script, options)
  const { code, signal } = await child.exited
  return { code, signal, stdout: child.stdout(), stderr: child.stderr() }
}
