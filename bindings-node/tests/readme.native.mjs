// The README's JavaScript examples and the names it documents, checked against the package: a
// new user copies a snippet and it must at least name what it uses.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'

import m from './support/impl.mjs'

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((b) => b[1])

test('every README snippet imports the exports it uses', () => {
  assert.ok(blocks.length > 0)
  const exported = Object.keys(m).filter((k) => /^[A-Za-z]/.test(k))
  for (const block of blocks) {
    const imported = new Set(
      [...block.matchAll(/(?:const|import)\s*\{([^}]*)\}\s*(?:=\s*require\('idmint'\)|from 'idmint')/g)].flatMap((b) =>
        b[1].split(',').map((n) => n.trim().split(/\s+as\s+/)[0]),
      ),
    )
    for (const name of exported) {
      // A call or a construction of the export, not a method of the same name (`.encode(`).
      const used = new RegExp(`(?<![.\\w])(?:new\\s+)?${name}\\s*\\(`).test(block)
      if (used) assert.ok(imported.has(name), `a README snippet uses ${name} without importing it:\n${block}`)
    }
  }
})

test('the names the README gives with a leading underscore are exports', () => {
  for (const [, name] of readme.matchAll(/`(_[A-Za-z]\w*)\(\)`/g)) {
    // Mentioned only as not exported is fine; presented as a call of the package is not.
    const line = readme.split('\n').find((l) => l.includes(`\`${name}()\``))
    if (/not an export/.test(readme.slice(readme.indexOf(line), readme.indexOf(line) + 300))) continue
    assert.equal(typeof m[name], 'function', `README names ${name}() but the package does not export it`)
  }
})
