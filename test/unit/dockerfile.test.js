'use strict'

// The image cannot be built here (no Docker engine in CI), so the Dockerfile
// is checked statically: what it copies exists and reaches the build context,
// and `npm ci` has what it needs (the lockfile and every workspace manifest).

const fs = require('node:fs')
const path = require('node:path')

const ROOT = path.join(__dirname, '..', '..')
const read = (/** @type {string} */ f) => fs.readFileSync(path.join(ROOT, f), 'utf8')

/**
 * The Dockerfile's instructions by stage, continuation lines joined.
 * @param {string} text
 * @returns {{ name: string, steps: { op: string, args: string }[] }[]}
 */
function parseDockerfile (text) {
  const lines = text.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))
  /** @type {{ name: string, steps: { op: string, args: string }[] }[]} */
  const stages = []
  for (const line of lines) {
    const [, op, args] = /^(\S+)\s+(.*)$/.exec(line) || []
    if (op.toUpperCase() === 'FROM') stages.push({ name: (/\sAS\s+(\S+)/i.exec(args) || [])[1] || String(stages.length), steps: [] })
    else stages[stages.length - 1].steps.push({ op: op.toUpperCase(), args })
  }
  return stages
}

/** The sources of a COPY from the build context (not --from another stage). @param {string} args */
function contextSources (args) {
  if (/--from=/.test(args)) return []
  const parts = args.split(/\s+/).filter((p) => !p.startsWith('--'))
  return parts.slice(0, -1)
}

/** Whether .dockerignore keeps `file` out of the build context (the patterns this repo uses). @param {string} file */
function ignored (file) {
  const patterns = read('.dockerignore').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#') && !l.startsWith('!'))
  const toRegExp = (/** @type {string} */ p) => new RegExp(`^${p.replace(/\/$/, '').replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*\//g, '(.*/)?').replace(/\*/g, '[^/]*')}(/.*)?$`)
  return patterns.some((p) => toRegExp(p).test(file.replace(/\/$/, '')))
}

describe('Dockerfile', () => {
  const stages = parseDockerfile(read('Dockerfile'))

  test('everything it copies from the build context exists and is not left out by .dockerignore', () => {
    const sources = stages.flatMap((s) => s.steps.filter((st) => st.op === 'COPY').flatMap((st) => contextSources(st.args)))
    expect(sources.length).toBeGreaterThan(5)
    for (const src of sources) {
      expect({ src, exists: fs.existsSync(path.join(ROOT, src)) }).toEqual({ src, exists: true })
      expect({ src, ignored: ignored(src) }).toEqual({ src, ignored: false })
    }
  })

  test('npm ci runs with the lockfile and every workspace manifest already copied', () => {
    const workspaces = JSON.parse(read('package.json')).workspaces.map((/** @type {string} */ w) => `${w}/package.json`)
    const installing = stages.filter((s) => s.steps.some((st) => st.op === 'RUN' && /\bnpm ci\b/.test(st.args)))
    expect(installing.map((s) => s.name)).toEqual(['deps'])
    for (const stage of installing) {
      const before = stage.steps.slice(0, stage.steps.findIndex((st) => st.op === 'RUN' && /\bnpm ci\b/.test(st.args)))
      const copied = before.filter((st) => st.op === 'COPY').flatMap((st) => contextSources(st.args))
      for (const needed of ['package.json', 'package-lock.json', ...workspaces]) expect(copied).toContain(needed)
    }
  })

  test('the rules this check relies on read .dockerignore as Docker does', () => {
    expect(ignored('node_modules')).toBe(true)
    expect(ignored('shared/node_modules')).toBe(true)
    expect(ignored('.env.local')).toBe(true)
    expect(ignored('package-lock.json')).toBe(false)
    expect(ignored('shared/')).toBe(false)
  })
})
