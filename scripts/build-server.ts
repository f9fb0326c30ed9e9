/**
 * Part of `npm run build`: server.ts compiled to build/server.js, so `npm run serve` starts on plain Node. Running
 * the TypeScript through tsx's loader costs the process ~150 MiB for as long as it runs (measured: importing the
 * server build took 122 MiB under plain Node, 268 MiB under tsx), which is most of a small VPS's headroom
 * (docs/decisions/058-memory.md). server.ts imports only Node packages and types, so removing the types is all the
 * compiling it needs: no bundling, and the packages stay in node_modules.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const source = fs.readFileSync(path.join(root, 'server.ts'), 'utf8')
const output = ts.transpileModule(source, {
  fileName: 'server.ts',
  reportDiagnostics: true,
  compilerOptions: {
    module: ts.ModuleKind.ESNext,
    target: ts.ScriptTarget.ES2022,
    // Type-only imports (the app's hook types) must vanish: the compiled file may load nothing from app/.
    verbatimModuleSyntax: false,
  },
})
if (output.diagnostics?.length) {
  for (const diagnostic of output.diagnostics)
    console.error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
  process.exit(1)
}
const file = path.join(root, 'build/server.js')
fs.mkdirSync(path.dirname(file), { recursive: true })
fs.writeFileSync(file, output.outputText)
console.log(`server: ${path.relative(root, file)}`)
