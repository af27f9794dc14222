'use strict'

// Headless Chromium from the distribution's package, for checking that the
// HTML report renders. No browser is downloaded by npm: on a fresh Debian
// machine, running as root, the package is installed with apt-get.

const fs = require('node:fs')
const { spawn } = require('node:child_process')
const { pathToFileURL } = require('node:url')

const CHROMIUM = '/usr/bin/chromium'
const APT_GET = '/usr/bin/apt-get'
const INSTALL_TIMEOUT_MS = 15 * 60 * 1000
const RUN_TIMEOUT_MS = 60 * 1000

// Offline and quiet: nothing but the file is fetched, nothing is updated.
const HEADLESS_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync']

/**
 * Runs a command, collecting its output.
 * @param {string[]} argv @param {{ timeoutMs?: number }} [opts]
 * @returns {Promise<{ code: number, stdout: string, stderr: string }>}
 */
function run (argv, { timeoutMs = RUN_TIMEOUT_MS } = {}) {
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs, killSignal: 'SIGKILL' })
    const out = { stdout: '', stderr: '' }
    child.stdout.on('data', (d) => { out.stdout += d })
    child.stderr.on('data', (d) => { out.stderr += d })
    child.on('error', (err) => resolve({ code: 127, ...out, stderr: `${out.stderr}${err.message}` }))
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), ...out }))
  })
}

const tail = (s) => s.trim().split('\n').slice(-5).join('\n')

/**
 * The Chromium binary, installing Debian's package first when it is missing
 * and this process may (root, apt-get present). A failed install is retried
 * once after `apt-get update`, for a machine whose package lists are stale
 * or empty.
 * @param {{ exists?: (file: string) => boolean, isRoot?: () => boolean, exec?: typeof run, say?: (m: string) => void }} [deps]
 * @returns {Promise<string>}
 */
async function ensureChromium (deps = {}) {
  const { exists = fs.existsSync, isRoot = () => process.getuid?.() === 0, exec = run, say = () => {} } = deps
  if (exists(CHROMIUM)) return CHROMIUM
  if (!exists(APT_GET)) throw new Error(`Chromium is not installed (${CHROMIUM} is missing) and there is no apt-get to install it: install Chromium and run again.`)
  if (!isRoot()) throw new Error(`Chromium is not installed (${CHROMIUM} is missing) and only root can install it: run "sudo apt-get install -y --no-install-recommends chromium", then run again.`)
  // `env` sets the variable for apt-get alone; this process's environment is untouched.
  const install = ['env', 'DEBIAN_FRONTEND=noninteractive', APT_GET, 'install', '-y', '--no-install-recommends', 'chromium']
  say('installing chromium with apt-get')
  let result = await exec(install, { timeoutMs: INSTALL_TIMEOUT_MS })
  if (result.code !== 0) {
    say('apt-get install failed; running apt-get update and trying again')
    const update = await exec(['env', 'DEBIAN_FRONTEND=noninteractive', APT_GET, 'update'], { timeoutMs: INSTALL_TIMEOUT_MS })
    if (update.code !== 0) throw new Error(`apt-get update failed (exit ${update.code}):\n${tail(update.stderr || update.stdout)}`)
    result = await exec(install, { timeoutMs: INSTALL_TIMEOUT_MS })
  }
  if (result.code !== 0) throw new Error(`apt-get install chromium failed (exit ${result.code}):\n${tail(result.stderr || result.stdout)}`)
  if (!exists(CHROMIUM)) throw new Error(`apt-get installed chromium, but ${CHROMIUM} is still missing`)
  return CHROMIUM
}

/**
 * The DOM of a local HTML file after its scripts ran.
 * @param {string} binary @param {string} file @param {{ userDataDir: string }} opts
 */
async function dumpDom (binary, file, { userDataDir }) {
  const r = await run([binary, ...HEADLESS_FLAGS, `--user-data-dir=${userDataDir}`, '--dump-dom', pathToFileURL(file).href])
  if (r.code !== 0 || !r.stdout.includes('</html>')) throw new Error(`chromium --dump-dom failed (exit ${r.code}):\n${tail(r.stderr)}`)
  return r.stdout
}

/**
 * A PNG of a local HTML file's first screen.
 * @param {string} binary @param {string} file @param {string} png
 * @param {{ userDataDir: string, width?: number, height?: number }} opts
 */
async function screenshot (binary, file, png, { userDataDir, width = 1400, height = 900 }) {
  const r = await run([binary, ...HEADLESS_FLAGS, `--user-data-dir=${userDataDir}`, '--hide-scrollbars',
    `--screenshot=${png}`, `--window-size=${width},${height}`, pathToFileURL(file).href])
  if (r.code !== 0 || !fs.existsSync(png)) throw new Error(`chromium --screenshot failed (exit ${r.code}):\n${tail(r.stderr)}`)
  return png
}

module.exports = { ensureChromium, dumpDom, screenshot, run, CHROMIUM }
