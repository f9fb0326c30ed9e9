import { execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { usingServer } from '#tests/setup/test-database.ts'
import { freePort } from '#tests/support/free-port.ts'

/*
 * The Dockerfile's steps without Docker (which cannot run on our machines): scripts/docker/*.sh run in a clean copy
 * of the project made the way `docker build` sees it (the files git knows, minus .dockerignore), as the Dockerfile
 * runs them: install with only the package files and patches present, then build and prune with everything, then
 * start with NODE_ENV=production, answer /healthz, and stop on SIGTERM.
 *
 * It runs in the embedded-database run only: the container's start uses its own fresh DATA_DIR, not the run's test
 * database, so the PostgreSQL-server run would repeat the same minutes (npm ci, a build) and prove nothing more.
 */

const ROOT = path.resolve('.')
const SCRIPTS = ['install.sh', 'build.sh', 'prune.sh', 'start.sh', 'healthcheck.sh']
const SESSION_SECRET = 'container-test-secret-0123456789abcdef'

let copy: string
let dataDir: string

/** Only what a build on a fresh machine would have: no npm_* or vitest variables, no NODE_ENV. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const passed = /^(PATH|HOME|TMPDIR|LANG|https?_proxy|no_proxy|npm_config_cache|npm_config_registry)$/i
  return {
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => passed.test(name))),
    ...extra,
  } as NodeJS.ProcessEnv
}

function runScript(name: string, timeoutMs: number, env = cleanEnv()) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(path.join(copy, 'scripts/docker', name), { cwd: copy, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.once('close', (code) => {
      clearTimeout(timer)
      resolve({ code, output })
    })
  })
}

/** The start and the end of a long output, for a failure message. */
const shorten = (output: string) =>
  output.length > 6000 ? `${output.slice(0, 3000)}\n…\n${output.slice(-3000)}` : output

/**
 * .dockerignore as Docker reads it: root-relative patterns, `*` within one path segment, a directory excludes its
 * contents.
 */
function dockerIgnored(): (file: string) => boolean {
  const patterns = fs
    .readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
  for (const pattern of patterns) {
    // This reader knows only the simple forms; a richer .dockerignore needs a richer reader here.
    expect(pattern, 'a .dockerignore pattern this test cannot read').toMatch(/^[\w.*-]+$/)
  }
  const regexes = patterns.map((pattern) => new RegExp(`^${pattern.replace(/\./g, '\\.').replace(/\*/g, '[^/]*')}$`))
  return (file) => {
    const parts = file.split('/')
    return parts.some((_, index) => regexes.some((regex) => regex.test(parts.slice(0, index + 1).join('/'))))
  }
}

/** The build context: the files git tracks or would track (uncommitted edits included), minus .dockerignore. */
function contextFiles() {
  const ignored = dockerIgnored()
  return execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => file && !ignored(file) && fs.existsSync(path.join(ROOT, file)))
}

function copyFiles(files: string[]) {
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(copy, file)), { recursive: true })
    fs.copyFileSync(path.join(ROOT, file), path.join(copy, file))
    fs.chmodSync(path.join(copy, file), fs.statSync(path.join(ROOT, file)).mode)
  }
}

/**
 * Every path under `dir`, to show that the running app wrote nothing there (in the image it cannot: root owns /app).
 */
function listTree(dir: string) {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).sort()
}

beforeAll(() => {
  copy = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-container-'))
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-container-data-'))
})

afterAll(() => {
  if (copy) fs.rmSync(copy, { recursive: true, force: true })
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
})

describe.skipIf(usingServer())('the container scripts (the Dockerfile’s steps, without Docker)', () => {
  test('the Dockerfile runs exactly the scripts this test runs, and they are executable', () => {
    const dockerfile = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')
    const used = [...dockerfile.matchAll(/scripts\/docker\/([\w-]+\.sh)/g)].map((match) => match[1])
    expect(new Set(used)).toEqual(new Set(SCRIPTS))
    for (const script of SCRIPTS) {
      expect(
        fs.statSync(path.join(ROOT, 'scripts/docker', script)).mode & 0o111,
        `${script} is not executable`,
      ).not.toBe(0)
    }
    expect(dockerfile).toMatch(/^USER node$/m)
    expect(dockerfile).toMatch(/^VOLUME \/data$/m)
    expect(dockerfile).toMatch(/^HEALTHCHECK .*scripts\/docker\/healthcheck\.sh/m)
    expect(dockerfile).toMatch(/^CMD \["scripts\/docker\/start\.sh"\]$/m)
  })

  test('in a clean copy: production install, build, prune, start in production, /healthz 200, SIGTERM exits 0', async () => {
    const files = contextFiles()
    expect(files).toContain('server.ts')
    expect(files.some((file) => file.startsWith('tests/') || file.startsWith('node_modules/'))).toBe(false)

    // As the Dockerfile: the dependency layer sees only the package files, the patches and the scripts.
    const first = files.filter((file) => /^(package(-lock)?\.json$|patches\/|scripts\/docker\/)/.test(file))
    copyFiles(first)
    // The packages are in npm's cache already (this checkout's own install put them there): taking them from it
    // without asking the registry about each again proves the same script in a fraction of the time.
    const install = await runScript('install.sh', 420_000, cleanEnv({ npm_config_prefer_offline: 'true' }))
    expect(install.code, shorten(install.output)).toBe(0)
    expect(install.output).toMatch(/patch-package/)
    copyFiles(files.filter((file) => !first.includes(file)))

    const build = await runScript('build.sh', 300_000)
    expect(build.code, shorten(build.output)).toBe(0)
    expect(fs.existsSync(path.join(copy, 'build/server/index.js'))).toBe(true)
    expect(fs.existsSync(path.join(copy, 'build/embedded-template.tar'))).toBe(true)

    const prune = await runScript('prune.sh', 180_000)
    expect(prune.code, shorten(prune.output)).toBe(0)
    for (const devOnly of ['vite', 'vitest', '@remix-run/dev', '@playwright/test', 'autocannon']) {
      expect(fs.existsSync(path.join(copy, 'node_modules', devOnly)), `${devOnly} survived the prune`).toBe(false)
    }
    for (const needed of ['tsx', 'patch-package', '@electric-sql/pglite', 'sharp']) {
      expect(fs.existsSync(path.join(copy, 'node_modules', needed)), `${needed} was pruned`).toBe(true)
    }
    // The route-matching patch (decision 016) is still in place after the prune.
    expect(fs.readFileSync(path.join(copy, 'node_modules/@remix-run/router/dist/router.cjs.js'), 'utf8')).toContain(
      'rankedBranchesCache',
    )

    const before = listTree(copy)
    const port = await freePort()
    const env = cleanEnv({ NODE_ENV: 'production', SESSION_SECRET, DATA_DIR: dataDir, PORT: String(port) })
    const server = spawn(path.join(copy, 'scripts/docker/start.sh'), {
      cwd: copy,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    server.stdout.on('data', (chunk) => (output += chunk))
    server.stderr.on('data', (chunk) => (output += chunk))
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      server.once('exit', (code, signal) => resolve({ code, signal })),
    )
    try {
      // start.sh execs node: the process Docker would signal is node running the server, not a shell or npm.
      const deadline = Date.now() + 90_000
      let status = 0
      while (status !== 200 && Date.now() < deadline && server.exitCode === null) {
        status = await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (response) => response.status,
          () => 0,
        )
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250))
      }
      expect(status, output.slice(-3000)).toBe(200)
      // The command of `npm run serve`: the compiled server with its heap limit.
      const serve = (
        JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { serve: string } }
      ).scripts.serve
      expect(fs.readFileSync(`/proc/${server.pid}/cmdline`, 'utf8').split('\0').filter(Boolean)).toEqual(
        serve.split(' '),
      )

      const healthcheck = await runScript('healthcheck.sh', 10_000, env)
      expect(healthcheck.code, healthcheck.output).toBe(0)
      const home = await fetch(`http://127.0.0.1:${port}/`)
      expect(home.status).toBe(200)
      expect(await home.text()).toContain('Stampwise')
      expect(output).not.toContain('Demo account') // production creates no demo owner

      const stopAsked = Date.now()
      server.kill('SIGTERM')
      expect(await exited).toEqual({ code: 0, signal: null })
      expect(Date.now() - stopAsked).toBeLessThan(10_000)
    } finally {
      if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL')
    }
    expect(listTree(copy)).toEqual(before)
    // With the server gone, the health check reports it.
    expect((await runScript('healthcheck.sh', 10_000, env)).code).toBe(1)
  }, 900_000)
})
