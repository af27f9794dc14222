'use strict'

// Small process helpers for the local stack: pid files that survive a crash
// (a stale pid is detected by checking the process's command line for the
// program and an argument only this checkout uses, so a reused pid never makes
// us think our server is up, nor gets stopped), waiting and stopping.

const fs = require('node:fs')
const net = require('node:net')
const { spawn, spawnSync } = require('node:child_process')

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The pid in `pidFile` if that process is alive and is this checkout's server;
 * otherwise undefined (and a stale file is removed). The program name alone
 * is not enough: after a reboot the pid may belong to a system mariadbd or to
 * another checkout's Kafka, which `stack:down` would then stop. So the command
 * line must also hold `arg`, an argument only this checkout's server is
 * started with (its data directory, its config file).
 * @param {string} pidFile
 * @param {{ names: string[], arg: string }} server `names`: one of them is in the command line
 * @param {(pid: number) => string[]} [readArgs] a process's command-line arguments
 */
function livePid (pidFile, { names, arg }, readArgs = procArgs) {
  let pid
  try { pid = Number(fs.readFileSync(pidFile, 'utf8').trim()) } catch { return undefined }
  const args = pid > 0 ? readArgs(pid) : []
  if (names.some((n) => args.some((a) => a.includes(n))) && args.includes(arg)) return pid
  fs.rmSync(pidFile, { force: true })
  return undefined
}

/** A live process's arguments, or none. @param {number} pid */
function procArgs (pid) {
  try { return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean) } catch { return [] }
}

/**
 * Starts a long-running server in the background, detached from this
 * process, with stdout and stderr appended to `logFile`.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ pidFile: string, logFile: string, cwd?: string, env?: Record<string,string> }} opts
 */
function spawnDaemon (cmd, args, { pidFile, logFile, cwd, env }) {
  const out = fs.openSync(logFile, 'a')
  const child = spawn(cmd, args, { cwd, env, detached: true, stdio: ['ignore', out, out] })
  fs.closeSync(out)
  fs.writeFileSync(pidFile, `${child.pid}\n`)
  child.unref()
  return child.pid
}

/** @param {number} pid */
function isAlive (pid) {
  try { process.kill(pid, 0); return true } catch { return false }
}

/**
 * SIGTERM, then SIGKILL after `graceMs`. Resolves once the process is gone.
 * @param {number} pid
 * @param {number} graceMs
 */
async function stopPid (pid, graceMs = 20000) {
  try { process.kill(pid, 'SIGTERM') } catch { return }
  const deadline = Date.now() + graceMs
  while (isAlive(pid) && Date.now() < deadline) await sleep(100)
  if (isAlive(pid)) {
    try { process.kill(pid, 'SIGKILL') } catch {}
    while (isAlive(pid)) await sleep(50)
  }
}

/**
 * Polls `probe` until it resolves truthy. Fails fast if the daemon died,
 * showing the end of its log files.
 * @param {() => Promise<boolean>} probe
 * @param {{ what: string, timeoutMs: number, pid?: number, logFiles?: string[] }} opts
 */
async function waitFor (probe, { what, timeoutMs, pid, logFiles = [] }) {
  const deadline = Date.now() + timeoutMs
  let lastError
  while (Date.now() < deadline) {
    try { if (await probe()) return } catch (err) { lastError = err }
    if (pid !== undefined && !isAlive(pid)) {
      throw new Error(`${what} exited during start-up${seeLogs(logFiles)}`)
    }
    await sleep(200)
  }
  throw new Error(`${what} not ready after ${timeoutMs} ms (${lastError ? lastError.message : 'no answer'})${seeLogs(logFiles)}`)
}

/**
 * Where to look, and the last lines of each log file that exists and is not
 * empty, for error messages. A server may write its reason to either file:
 * Kafka logs through log4j, but a JVM that fails early prints to stdout/stderr.
 * @param {string[]} files
 */
function seeLogs (files, lines = 15) {
  if (!files.length) return ''
  const tails = files.map((file) => {
    const text = readEnd(file).trimEnd()
    return text ? `\n--- end of ${file} ---\n${text.split('\n').slice(-lines).join('\n')}` : ''
  })
  return `; see ${files.join(' and ')}${tails.join('')}`
}

/**
 * The last `bytes` of a file ('' if there is none): a broker's log may have
 * grown to many MB, and only its end goes into a message.
 * @param {string} file
 */
function readEnd (file, bytes = 64 * 1024) {
  let fd
  try {
    fd = fs.openSync(file, 'r')
    const size = fs.fstatSync(fd).size
    const buf = Buffer.alloc(Math.min(size, bytes))
    const n = fs.readSync(fd, buf, 0, buf.length, size - buf.length)
    return buf.subarray(0, n).toString('utf8')
  } catch {
    return ''
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/** @param {number} port @param {string} host */
function canConnect (port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host })
    socket.once('connect', () => { socket.destroy(); resolve(true) })
    socket.once('error', () => resolve(false))
  })
}

/**
 * Fails clearly when a port the stack needs is taken by a process it did not
 * start (another checkout's stack, a system server), instead of letting the
 * server die on bind with the reason buried in its log.
 * @param {number} port @param {string} what @param {string} setting
 */
async function assertPortFree (port, what, setting) {
  if (await canConnect(port)) {
    throw new Error(`port ${port} is already in use by a process this checkout did not start; stop it, or point ${setting} at another port for ${what}`)
  }
}

/** @param {string} cmd */
function which (cmd) {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' })
  return r.status === 0 ? r.stdout.trim() : undefined
}

/**
 * Runs a command to completion, throwing with its output on failure.
 * @param {string} cmd @param {string[]} args @param {import('node:child_process').SpawnSyncOptions} [opts]
 */
function run (cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...opts })
  if (r.status !== 0) {
    const output = `${r.stdout || ''}${r.stderr || ''}`.trim().split('\n').slice(-20).join('\n')
    throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status}${r.error ? `, ${r.error.message}` : ''})\n${output}`)
  }
  return String(r.stdout || '')
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0

module.exports = { livePid, spawnDaemon, stopPid, waitFor, seeLogs, which, run, isRoot, assertPortFree }
