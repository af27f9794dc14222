'use strict'

// A frozen copy of the code under test. The working tree is shared with other
// engineers and changes while a campaign runs; every run of a campaign must
// start the same code, or an A B A B comparison compares two programs. So the
// campaign copies the packages the switch runs (shared, api-adapter,
// handlers: their src and package.json, uncommitted changes included) once,
// and starts every process from the copy. Installed dependencies are linked,
// not copied; the workspace links point into the copy.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const crypto = require('node:crypto')
const { execFileSync } = require('node:child_process')

const PACKAGES = ['shared', 'api-adapter', 'handlers']

/** @param {string} from @param {string} to */
function copyDir (from, to) {
  fs.mkdirSync(to, { recursive: true })
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, entry.name)
    const dst = path.join(to, entry.name)
    if (entry.isDirectory()) copyDir(src, dst)
    else if (entry.isFile()) fs.copyFileSync(src, dst)
  }
}

/** A digest of the copied sources, to tell two snapshots apart. @param {string} dir */
function digest (dir) {
  const h = crypto.createHash('sha256')
  /** @param {string} d */
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name)
      if (e.isSymbolicLink()) continue
      if (e.isDirectory()) walk(p)
      else { h.update(path.relative(dir, p)); h.update(fs.readFileSync(p)) }
    }
  }
  for (const pkg of PACKAGES) walk(path.join(dir, pkg))
  return h.digest('hex').slice(0, 16)
}

/**
 * The commit a `--code` value names: 'head' is the last commit, anything but
 * 'working' a git revision (an older commit, measured on today's machine
 * with today's harness, against today's schema).
 * @param {string} root @param {string} from
 * @returns {string | null} the full commit id, or null for the working tree
 */
function commitOf (root, from) {
  if (from === 'working') return null
  const rev = from === 'head' ? 'HEAD' : from
  try {
    return execFileSync('git', ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], { cwd: root, encoding: 'utf8' }).trim()
  } catch {
    throw new Error(`--code ${from}: not a commit of this repository`)
  }
}

/**
 * @param {string} root the repository
 * @param {{ from?: string }} [opts] 'working' (the working tree as it is), 'head' (the last commit) or a git revision
 * @returns {{ dir: string, from: string, commit: string | null, digest: string, remove: () => void }}
 */
function snapshotTree (root, { from = 'working' } = {}) {
  const commit = commitOf(root, from)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-code-'))
  if (commit) {
    const paths = PACKAGES.flatMap((pkg) => [`${pkg}/src`, `${pkg}/package.json`])
    const tar = execFileSync('git', ['archive', '--format=tar', commit, ...paths], { cwd: root, maxBuffer: 256 * 2 ** 20 })
    execFileSync('tar', ['-x', '-C', dir], { input: tar })
  }
  for (const pkg of PACKAGES) {
    if (!commit) {
      copyDir(path.join(root, pkg, 'src'), path.join(dir, pkg, 'src'))
      fs.copyFileSync(path.join(root, pkg, 'package.json'), path.join(dir, pkg, 'package.json'))
    }
    const own = path.join(root, pkg, 'node_modules')
    if (fs.existsSync(own)) fs.symlinkSync(own, path.join(dir, pkg, 'node_modules'))
  }
  fs.copyFileSync(path.join(root, 'package.json'), path.join(dir, 'package.json'))
  const modules = path.join(dir, 'node_modules')
  fs.mkdirSync(path.join(modules, '@switchyard'), { recursive: true })
  for (const entry of fs.readdirSync(path.join(root, 'node_modules'))) {
    if (entry !== '@switchyard') fs.symlinkSync(path.join(root, 'node_modules', entry), path.join(modules, entry))
  }
  for (const entry of fs.readdirSync(path.join(root, 'node_modules', '@switchyard'))) {
    const target = PACKAGES.includes(entry) ? path.join(dir, entry) : path.join(root, entry)
    fs.symlinkSync(target, path.join(modules, '@switchyard', entry))
  }
  return { dir, from, commit, digest: digest(dir), remove: () => fs.rmSync(dir, { recursive: true, force: true }) }
}

module.exports = { snapshotTree }
