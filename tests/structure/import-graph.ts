import fs from 'node:fs'
import path from 'node:path'
import ts from 'typescript'

/** The folders whose modules make up the app's import graph. */
export const GRAPH_ROOTS = ['app', 'models', 'migrations']

const ROOT = path.resolve(import.meta.dirname, '../..')

/** package.json's `imports` ("#app/*": "./app/*"), as prefixes to replace. */
function aliases(): [string, string][] {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    imports: Record<string, string>
  }
  return Object.entries(pkg.imports).map(([alias, target]) => [alias.replace(/\*$/, ''), target.replace(/\*$/, '')])
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(full)
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : []
  })
}

/**
 * The modules a source file names: imports, re-exports and `import('…')` with a literal path. Type-only imports
 * count too: erased at run time, they still make a module know another, and a type both sides need belongs in a
 * module below both (app/types), which breaks the circle for good rather than hiding it.
 */
export function importedSpecifiers(source: string, fileName = 'module.ts'): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TSX)
  const found: string[] = []
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text)
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push(node.arguments[0].text)
    }
    ts.forEachChild(node, visit)
  }
  visit(file)
  return found
}

/** The file an import names, relative to the repository; null for a package or a file outside the graph. */
function resolve(specifier: string, from: string, known: Set<string>, prefixes: [string, string][]): string | null {
  let target: string | null = null
  for (const [alias, replacement] of prefixes) {
    if (specifier.startsWith(alias)) target = path.normalize(replacement + specifier.slice(alias.length))
  }
  if (!target && specifier.startsWith('.')) target = path.normalize(path.join(path.dirname(from), specifier))
  if (!target) return null
  const candidates = [target, `${target}.ts`, `${target}.tsx`, path.join(target, 'index.ts')]
  return candidates.find((candidate) => known.has(candidate)) ?? null
}

/** Every module under GRAPH_ROOTS with the modules of the graph it loads (paths relative to the repository). */
export function importGraph(): Map<string, string[]> {
  const files = GRAPH_ROOTS.flatMap((dir) => sourceFiles(path.join(ROOT, dir))).map((f) => path.relative(ROOT, f))
  const known = new Set(files)
  const prefixes = aliases()
  return new Map(
    files.map((file) => {
      const source = fs.readFileSync(path.join(ROOT, file), 'utf8')
      const targets = importedSpecifiers(source, file)
        .map((specifier) => resolve(specifier, file, known, prefixes))
        .filter((target): target is string => target !== null)
      return [file, [...new Set(targets)]]
    }),
  )
}

/**
 * The import cycles of a graph: one per strongly connected component (Tarjan), each given as one closed path
 * through it (`a → b → a`), so a failure names files a reader can follow.
 */
export function findCycles(graph: Map<string, string[]>): string[][] {
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const components: string[][] = []
  const strongConnect = (node: string) => {
    index.set(node, counter)
    low.set(node, counter++)
    stack.push(node)
    onStack.add(node)
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        strongConnect(next)
        low.set(node, Math.min(low.get(node)!, low.get(next)!))
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!))
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        component.push(member)
      } while (member !== node)
      const selfLoop = (graph.get(node) ?? []).includes(node)
      if (component.length > 1 || selfLoop) components.push(component)
    }
  }
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) strongConnect(node)
  return components.map((component) => closedPath(graph, new Set(component)))
}

/** The shortest way back to the component's first file (by name) through the component: breadth first. */
function closedPath(graph: Map<string, string[]>, component: Set<string>): string[] {
  const start = [...component].sort()[0]!
  const previous = new Map<string, string>()
  const queue = [start]
  while (queue.length) {
    const node = queue.shift()!
    for (const next of graph.get(node) ?? []) {
      if (!component.has(next)) continue
      if (next === start) {
        const way = [node]
        while (way[0] !== start) way.unshift(previous.get(way[0]!)!)
        return [...way, start]
      }
      if (!previous.has(next)) {
        previous.set(next, node)
        queue.push(next)
      }
    }
  }
  return [start, start]
}
