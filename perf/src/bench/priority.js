'use strict'

// CPU priority of the processes under test (`--priority`, or `priority=` in a
// variant). On two shared cores a shared transaction's time open is mostly
// its handler process and MariaDB waiting for a core between round trips,
// behind the API, the broker and the generator; with those two ahead of the
// rest the 1,000/s p99 was lower in most pairs of three campaigns
// (docs/performance.md, thirty-fourth round), so that is the bench's default
// where it may set it (root). A part's processes get the nice value asked
// for, every thread of them (Linux nice is per thread; threads started later
// inherit it from the thread that starts them). The stack's own servers live
// across runs, so every run sets theirs, to 0 when the run asks for nothing,
// and a variant's priority never leaks into the next run.

const fs = require('node:fs')
const os = require('node:os')
const { UsageError } = require('../cli-args')

/** What a priority can name: the switch's processes and the stack's servers. */
const PARTS = ['handlers', 'api', 'db', 'kafka']

/** The bench's default as root: the commit lane's two processes ahead of the rest. */
const DEFAULT_PRIORITY = Object.freeze({ handlers: -20, db: -20 })

/**
 * The priority a campaign runs with unless `--priority` says otherwise, and
 * why: the default needs root (a nice value below 0).
 * @param {boolean} root
 * @returns {{ priority: Record<string, number>, from: 'default' | 'not root' }}
 */
const defaultPriority = (root) => (root ? { priority: { ...DEFAULT_PRIORITY }, from: 'default' } : { priority: {}, from: 'not root' })

/**
 * `handlers:-10,db:-10` (or with `+`, as inside a variant) → { handlers: -10, db: -10 };
 * `none` → {} (every process at the nice it starts with, the stack's servers at 0).
 * @param {string} s @param {string} flag named in the error
 * @returns {Record<string, number>}
 */
function parsePriority (s, flag) {
  /** @type {Record<string, number>} */
  const out = {}
  if (s.trim() === 'none') return out
  for (const item of s.split(/[+,]/).map((p) => p.trim()).filter(Boolean)) {
    const m = /^([a-z]+):(-?\d+)$/.exec(item)
    const nice = m ? Number(m[2]) : NaN
    if (!m || !PARTS.includes(m[1]) || nice < -20 || nice > 19) {
      throw new UsageError(`${flag}: ${item} is not PART:NICE with PART one of ${PARTS.join(', ')} and NICE a whole number from -20 to 19`)
    }
    if (m[1] in out) throw new UsageError(`${flag}: ${m[1]} is given twice`)
    out[m[1]] = nice
  }
  if (!Object.keys(out).length) throw new UsageError(`${flag}: name at least one PART:NICE (${PARTS.join(', ')}), or none`)
  return out
}

/** { handlers: -10 } → 'handlers at nice -10', as descriptions and reports show it. @param {Record<string, number>} priority */
const describePriority = (priority) => Object.entries(priority).map(([part, nice]) => `${part} at nice ${nice}`).join(', ') || 'every process at nice 0'

/**
 * Sets the nice value of every thread of a process.
 * @param {number} pid @param {number} nice
 * @returns {number} threads set
 */
function setNice (pid, nice) {
  let tids
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`).map(Number)
  } catch {
    tids = [pid] // not Linux, or no /proc: the process as the OS sees it
  }
  let set = 0
  for (const tid of tids) {
    try {
      os.setPriority(tid, nice)
      set++
    } catch (err) {
      const e = /** @type {NodeJS.ErrnoException & { info?: { code?: string } }} */ (err)
      const code = (e.info && e.info.code) || e.code
      if (code === 'ESRCH') continue // a thread that ended meanwhile
      if (code === 'EACCES' || code === 'EPERM') {
        throw new Error(`cannot set nice ${nice} on process ${pid}: a nice value lower than a process has needs root or CAP_SYS_NICE`)
      }
      throw err
    }
  }
  return set
}

/**
 * A run's priorities: each part named gets its nice value. The stack's
 * servers outlive the run, so those that another run of the campaign sets
 * (`resets`) go back to 0 when this run names them not; the switch's own
 * processes are new every run, started at the bench's own nice.
 * @param {Record<string, number> | undefined} priority
 * @param {{ api?: number, handlers?: number[], mariadb?: number | null, kafka?: number | null }} pids
 *   the switch's processes (none after the runs) and the stack's servers (null when not run here)
 * @param {string[]} [resets] the parts any run of the campaign names
 * @returns {Record<string, number>} what was set, by part
 */
function applyPriority (priority = {}, pids, resets = []) {
  const byPart = { handlers: pids.handlers || [], api: pids.api ? [pids.api] : [], db: pids.mariadb ? [pids.mariadb] : [], kafka: pids.kafka ? [pids.kafka] : [] }
  /** @type {Record<string, number>} */
  const applied = {}
  for (const part of PARTS) {
    const stackServer = part === 'db' || part === 'kafka'
    if (!(part in priority) && !(stackServer && resets.includes(part))) continue
    const procs = byPart[/** @type {keyof typeof byPart} */ (part)]
    if (!procs.length) continue // a server not run here (an external database or broker)
    const nice = priority[part] ?? 0
    for (const pid of procs) setNice(pid, nice)
    applied[part] = nice
  }
  return applied
}

/**
 * The parts that any configuration of a campaign gives a priority to.
 * @param {Array<Record<string, number> | undefined>} priorities
 */
const partsNamed = (priorities) => PARTS.filter((part) => priorities.some((p) => p && part in p))

module.exports = { PARTS, DEFAULT_PRIORITY, defaultPriority, parsePriority, describePriority, setNice, applyPriority, partsNamed }
