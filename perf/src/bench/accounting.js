'use strict'

// Counting work, not only time: CPU per process from /proc, MariaDB's
// statement and commit counters, Kafka messages from the end offsets of the
// run's topics, and the machine-wide CPU so that other users of the box show.

const fs = require('node:fs')
const os = require('node:os')
const { execFileSync } = require('node:child_process')
const { round } = require('./schedule')

/**
 * MariaDB's statement counters by kind. A multi-table UPDATE or DELETE (the
 * notification handler's outcome flush is `UPDATE callback c JOIN (…) u`)
 * counts under `_multi`, not under Com_update or Com_delete. A prepared
 * statement's executions count under its kind too. `set`: the session
 * settings a transaction changes (DB_PREPARED_WRITES turns autocommit off and
 * on again around its writes; otherwise only new connections set anything).
 */
const STATEMENT_KINDS = {
  select: ['Com_select'],
  insert: ['Com_insert', 'Com_insert_select', 'Com_replace', 'Com_replace_select'],
  update: ['Com_update', 'Com_update_multi'],
  delete: ['Com_delete', 'Com_delete_multi'],
  set: ['Com_set_option']
}
const STATEMENT_COUNTERS = Object.values(STATEMENT_KINDS).flat()
/**
 * What a step costs InnoDB's buffer pool: pages read from disk because they
 * were not in it, pages created (a page split creates one, so does a table
 * that grows) and pages written back to the data files (each dirty page
 * flushed, 16 KB, twice with the doublewrite buffer). Random ids dirty a
 * different leaf of each id index per transfer on a large ledger, where a
 * small one keeps rewriting the same few pages. On a large ledger these, not
 * the statements, are what the transfers pay for (docs/benchmarks.md, the
 * 10 M-transfer ledger). Flushing lags the writes it follows, so a step's
 * pages written include earlier steps' tail.
 */
const PAGE_COUNTERS = ['Innodb_buffer_pool_reads', 'Innodb_pages_created', 'Innodb_pages_written']
/**
 * What the statements weigh, whatever their number: the bytes MariaDB
 * received from its clients (the SQL text with every value escaped into it,
 * and the protocol's framing) and the bytes InnoDB wrote to its redo log
 * (every row change, made durable at each commit). Neither moves with the
 * machine's speed, so a change to what the switch writes shows in them at
 * once, where its effect on CPU is within the noise of a run.
 */
const BYTE_COUNTERS = ['Bytes_received', 'Innodb_os_log_written']
const COUNTERS = [...STATEMENT_COUNTERS, 'Com_commit', 'Com_rollback', ...PAGE_COUNTERS, ...BYTE_COUNTERS]

let ticksPerSecond = 0
function clockTicks () {
  if (!ticksPerSecond) {
    try { ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100 } catch { ticksPerSecond = 100 }
  }
  return ticksPerSecond
}

/**
 * The fields of /proc/<pid>/stat from the state on (fields[0] is field 3 of
 * proc(5)), or null when the process is gone; `pid/task/tid` for a thread.
 * @param {number | string} pid
 */
function statFields (pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name may contain spaces: fields start after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return null
  }
}

/** utime + stime of a process (or `pid/task/tid`: a thread) in ms, or null when it is gone. @param {number | string} pid */
function processCpuMs (pid) {
  const fields = statFields(pid)
  return fields && ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks()
}

/**
 * utime + stime in ms of every thread of the processes, keyed `pid/tid`;
 * a thread that ends while they are read is left out.
 * @param {number | number[]} pids
 * @returns {Record<string, number>}
 */
function threadsCpuMs (pids) {
  /** @type {Record<string, number>} */
  const out = {}
  for (const pid of [pids].flat()) {
    let tids
    try { tids = fs.readdirSync(`/proc/${pid}/task`) } catch { continue }
    for (const tid of tids) {
      const ms = processCpuMs(`${pid}/task/${tid}`)
      if (ms !== null) out[`${pid}/${tid}`] = ms
    }
  }
  return out
}

/**
 * The threads' share of a step: the busiest thread's CPU, and the busiest
 * main thread's (a Node.js process's main thread is its event loop, which
 * every stage of that process waits for), each in % of one core. A process
 * may be busy in total and still have an event loop with room, or the other
 * way round: the process total alone does not say which.
 * @param {Record<string, number>} a @param {Record<string, number>} b @param {number} wallMs
 */
function threadsDelta (a, b, wallMs) {
  let busiest = 0
  let main = 0
  for (const [key, after] of Object.entries(b)) {
    // A thread started since `a` used all its CPU within the step.
    const ms = after - (a[key] || 0)
    busiest = Math.max(busiest, ms)
    const [pid, tid] = key.split('/')
    if (pid === tid) main = Math.max(main, ms)
  }
  return { busiestThreadPctCore: round(100 * busiest / wallMs), mainThreadPctCore: round(100 * main / wallMs) }
}

/** How long ago a process started, in seconds, or null when it is gone. @param {number} pid */
function processAgeS (pid) {
  const fields = statFields(pid)
  if (!fields) return null
  const uptimeS = Number(fs.readFileSync('/proc/uptime', 'utf8').split(' ')[0])
  return Math.max(0, Math.round(uptimeS - Number(fields[19]) / clockTicks()))
}

/** Busy and total CPU of the whole machine in ms (all cores). */
function machineCpuMs () {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number)
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line
  const tick = 1000 / clockTicks()
  return { busy: (user + nice + system + irq + softirq + steal) * tick, steal: steal * tick, total: (user + nice + system + idle + iowait + irq + softirq + steal) * tick }
}

/**
 * CPU of one process, or of several counted as one (null when any is gone).
 * @param {number | number[]} pids
 */
function processesCpuMs (pids) {
  let sum = 0
  for (const pid of [pids].flat()) {
    const ms = processCpuMs(pid)
    if (ms === null) return null
    sum += ms
  }
  return sum
}

/**
 * A CPU snapshot of named processes (a name may stand for several) plus the machine.
 * @param {Record<string, number | number[] | null>} pids
 */
function cpuSnapshot (pids) {
  /** @type {Record<string, number | null>} */
  const byProcess = {}
  /** @type {Record<string, Record<string, number>>} */
  const threads = {}
  for (const [name, pid] of Object.entries(pids)) {
    byProcess[name] = pid ? processesCpuMs(pid) : null
    if (pid) threads[name] = threadsCpuMs(pid)
  }
  return { at: performance.now(), byProcess, threads, machine: machineCpuMs() }
}

/**
 * CPU used between two snapshots: ms per process, % of one core, ms per transfer,
 * and whatever the rest of the machine used.
 * @param {ReturnType<typeof cpuSnapshot>} a @param {ReturnType<typeof cpuSnapshot>} b @param {number} transfers
 */
function cpuDelta (a, b, transfers) {
  const wallMs = b.at - a.at
  /** @type {Record<string, { ms: number, pctCore: number, msPerTransfer: number | null, busiestThreadPctCore?: number, mainThreadPctCore?: number }>} */
  const out = {}
  let ours = 0
  for (const name of Object.keys(b.byProcess)) {
    const before = a.byProcess[name]; const after = b.byProcess[name]
    if (before === null || after === null || before === undefined) continue
    const ms = after - before
    ours += ms
    out[name] = { ms: Math.round(ms), pctCore: round(100 * ms / wallMs), msPerTransfer: transfers ? round(ms / transfers, 3) : null }
    if (a.threads[name] && b.threads[name]) Object.assign(out[name], threadsDelta(a.threads[name], b.threads[name], wallMs))
  }
  const busy = b.machine.busy - a.machine.busy
  const other = Math.max(0, busy - ours)
  return {
    wallMs: Math.round(wallMs),
    processes: out,
    ourMsPerTransfer: transfers ? round(ours / transfers, 3) : null,
    machineBusyPct: round(100 * busy / (b.machine.total - a.machine.total)),
    // CPU the hypervisor gave to other guests: a virtual machine's hidden neighbour.
    stealPct: round(100 * (b.machine.steal - a.machine.steal) / (b.machine.total - a.machine.total)),
    otherProcessesPctCore: round(100 * other / wallMs)
  }
}

/**
 * Waits (bounded) until the rest of the machine is quiet: CPU used by
 * processes other than ours below `maxOtherPctCore` over one sample.
 * @param {Record<string, number | number[] | null>} pids @param {{ maxOtherPctCore: number, maxWaitMs: number, sampleMs?: number }} opts
 */
async function waitForQuiet (pids, { maxOtherPctCore, maxWaitMs, sampleMs = 1000 }) {
  const started = performance.now()
  let other = Infinity
  while (performance.now() - started < maxWaitMs + sampleMs) {
    const a = cpuSnapshot(pids)
    await new Promise((resolve) => setTimeout(resolve, sampleMs))
    other = cpuDelta(a, cpuSnapshot(pids), 0).otherProcessesPctCore
    if (other <= maxOtherPctCore) break
  }
  return { waitedMs: Math.round(performance.now() - started), otherPctCore: other }
}

/** @param {import('knex').Knex} db */
async function sqlCounters (db) {
  const [rows] = await db.raw(`SHOW GLOBAL STATUS WHERE Variable_name IN (${COUNTERS.map(() => '?').join(',')})`, COUNTERS)
  return Object.fromEntries(rows.map((r) => [r.Variable_name, Number(r.Value)]))
}

/**
 * Other clients of the same MariaDB server: their statements land in the
 * same global counters, so a step that saw any is marked.
 * @param {import('knex').Knex} db @param {string} ownDb
 */
async function otherDbClients (db, ownDb) {
  const [rows] = await db.raw('SELECT DB AS db, COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB IS NOT NULL AND DB <> ? AND ID <> CONNECTION_ID() GROUP BY DB', [ownDb])
  return rows.map((r) => `${r.db} (${r.n})`)
}

/**
 * Each counter's delta, the statements of each kind and in all, and per
 * transfer the statements, commits, disk page reads, pages created and pages
 * written, and the bytes of SQL received and of redo written (null without
 * transfers).
 * @param {Record<string, number>} a @param {Record<string, number>} b @param {number} transfers
 * @returns {Record<string, any> & { statements: number, byKind: Record<string, number>,
 *   statementsPerTransfer: number | null, commitsPerTransfer: number | null,
 *   pageReadsPerTransfer: number | null, pagesCreatedPerTransfer: number | null,
 *   pagesWrittenPerTransfer: number | null, sqlBytesPerTransfer: number | null, redoBytesPerTransfer: number | null }}
 */
function sqlDelta (a, b, transfers) {
  /** @type {Record<string, number>} */
  const d = Object.fromEntries(COUNTERS.map((c) => [c, (b[c] || 0) - (a[c] || 0)]))
  const byKind = Object.fromEntries(Object.entries(STATEMENT_KINDS).map(([kind, names]) => [kind, names.reduce((n, c) => n + d[c], 0)]))
  const statements = STATEMENT_COUNTERS.reduce((n, c) => n + d[c], 0)
  return {
    ...d,
    statements,
    byKind,
    statementsPerTransfer: transfers ? round(statements / transfers, 3) : null,
    commitsPerTransfer: transfers ? round(d.Com_commit / transfers, 3) : null,
    pageReadsPerTransfer: transfers ? round(d.Innodb_buffer_pool_reads / transfers, 3) : null,
    pagesCreatedPerTransfer: transfers ? round(d.Innodb_pages_created / transfers, 3) : null,
    pagesWrittenPerTransfer: transfers ? round(d.Innodb_pages_written / transfers, 3) : null,
    sqlBytesPerTransfer: transfers ? Math.round(d.Bytes_received / transfers) : null,
    redoBytesPerTransfer: transfers ? Math.round(d.Innodb_os_log_written / transfers) : null
  }
}

/**
 * A byte count as the reports print it: KB with one decimal (1 KB = 1,000
 * bytes), or '–' when there is none.
 * @param {number | null | undefined} bytes
 */
function kilobytes (bytes) {
  return bytes === null || bytes === undefined || !Number.isFinite(bytes) ? '–' : `${(bytes / 1000).toFixed(1)} KB`
}

/**
 * Sum of the high watermarks of each topic (every message ever written).
 * @param {import('kafkajs').Admin} admin @param {string[]} topics
 */
async function topicMessages (admin, topics) {
  const offsets = await Promise.all(topics.map((topic) => admin.fetchTopicOffsets(topic)))
  /** @type {Record<string, number>} */
  const out = {}
  topics.forEach((topic, i) => { out[topic] = offsets[i].reduce((n, p) => n + Number(p.high), 0) })
  return out
}

/** @param {Record<string, number>} a @param {Record<string, number>} b @param {number} transfers @param {string} prefix */
function kafkaDelta (a, b, transfers, prefix) {
  /** @type {Record<string, number>} */
  const byTopic = {}
  let total = 0
  for (const t of Object.keys(b)) {
    const d = b[t] - (a[t] || 0)
    if (d) byTopic[t.slice(prefix.length)] = d
    total += d
  }
  return { messages: total, perTransfer: transfers ? round(total / transfers, 3) : null, byTopic }
}

/** Durable settings in force, as the servers report them. @param {import('knex').Knex} db */
async function durableSettings (db) {
  const [[r]] = await db.raw('SELECT @@innodb_flush_log_at_trx_commit AS flush, @@sync_binlog AS syncBinlog, @@log_bin AS logBin, @@version AS version, @@innodb_buffer_pool_size AS pool, @@innodb_log_file_size AS redo, @@innodb_io_capacity AS io')
  return {
    innodb_flush_log_at_trx_commit: Number(r.flush),
    innodbBufferPoolMiB: Math.round(Number(r.pool) / 2 ** 20),
    innodbRedoLogMiB: Math.round(Number(r.redo) / 2 ** 20),
    innodbIoCapacity: Number(r.io),
    sync_binlog: Number(r.syncBinlog),
    log_bin: Boolean(Number(r.logBin)),
    mariadbVersion: r.version,
    kafkaProducerAcks: 'all (-1, shared/src/kafka/producer.js)',
    kafkaReplication: 'single broker, replication factor 1, min.insync.replicas=1; the broker does not fsync per message (Kafka default)'
  }
}

/**
 * How the machine's idle vCPUs wait: the cpuidle driver and governor, and the
 * guest halt-polling window when the haltpoll governor is in use (a virtual
 * machine's idle vCPU that polls for a while before it halts is woken without
 * the host's help; one that halts at once costs every hop a wake-up through
 * the host — docs/performance.md, twenty-fifth round). Read from sysfs under
 * `sys`; null where the machine does not say.
 * @param {string} [sys]
 * @returns {{ driver: string | null, governor: string | null, haltPollUs: number | null }}
 */
function cpuIdle (sys = '/sys') {
  /** @param {string} file */
  const read = (file) => { try { return fs.readFileSync(`${sys}/${file}`, 'utf8').trim() || null } catch { return null } }
  const pollNs = read('module/haltpoll/parameters/guest_halt_poll_ns')
  return {
    driver: read('devices/system/cpu/cpuidle/current_driver'),
    governor: read('devices/system/cpu/cpuidle/current_governor_ro') || read('devices/system/cpu/cpuidle/current_governor'),
    haltPollUs: pollNs !== null && /^\d+$/.test(pollNs) ? Number(pollNs) / 1000 : null
  }
}

/** @param {string} root */
function machineInfo (root) {
  let commit = null; let dirty = null
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim()
    dirty = execFileSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' }).trim().split('\n').filter(Boolean).length
  } catch {}
  return {
    nproc: os.availableParallelism ? os.availableParallelism() : os.cpus().length,
    cpuModel: (os.cpus()[0] || { model: 'unknown' }).model,
    memoryGiB: round(os.totalmem() / 2 ** 30, 1),
    kernel: os.release(),
    node: process.version,
    loadavg: os.loadavg().map((v) => round(v)),
    cpuIdle: cpuIdle(),
    git: { commit, uncommittedFiles: dirty }
  }
}

module.exports = { COUNTERS, kilobytes, processCpuMs, processAgeS, cpuSnapshot, cpuDelta, waitForQuiet, sqlCounters, sqlDelta, otherDbClients, topicMessages, kafkaDelta, durableSettings, machineInfo, cpuIdle }
