'use strict'

// The system under test, started per run the way an operator runs it: the
// api-adapter and the handlers, each group of handlers its own process
// (HANDLER_PROCESSES), each a real child process with the run's environment
// (its own topics and consumer groups), on the shared local stack. Stopped
// with SIGTERM after the run.

const path = require('node:path')
const crypto = require('node:crypto')
const { spawn, execFile } = require('node:child_process')
const stack = require('../../../scripts/stack/index')
const { sizeBytes } = require('../../../scripts/stack/mariadb')
const { loadConfig, childEnv } = require('../../../shared/src/config')
const { ensureDatabase } = require('../../../shared/src/db')
const { createKafkaFromConfig, allTopicNames } = require('../../../shared/src/kafka')
const { names: handlerNames } = require('../../../handlers/src/registry')
const { createPortPicker } = require('./ports')

const root = path.join(__dirname, '..', '..', '..')
const BENCH_DB = 'switchyard_bench'
/** V8 flags the switch's processes run with (the image's NODE_OPTIONS and CMD, the chart, docker-compose.yml, package.json start scripts). */
const NODE_FLAGS = ['--max-semi-space-size=64', '--initial-old-space-size=128']
/**
 * Which handlers share a process: all in one. In production every handler is
 * its own Deployment (helm/); on two cores each process costs CPU of its own.
 * The notification handler in a process of its own once gave a lower p99 at
 * 1,000/s, until its long garbage-collection pauses were removed at the cause
 * (1e3fa59); since then the same p99 for ~0.1 ms more CPU per transfer
 * (docs/benchmarks.md). `--handler-processes` measures other splits.
 */
const HANDLER_PROCESSES = [handlerNames().join(',')]
/**
 * The ledger grows by every run; InnoDB must hold its working set (a running
 * local server grows to it). STACK_DB_BUFFER_POOL may ask for more (a large
 * seeded ledger), never for less.
 */
const BENCH_BUFFER_POOL = '4G'
const BENCH_REDO_LOG = '2G'
/** The large seeded ledger lives apart, so that the other profiles keep a small one. */
const SEEDED_DB = 'switchyard_bench_seeded'

// Outside the ephemeral range, so an outgoing connection cannot take one before its process binds it.
const { freePort } = createPortPicker()

/**
 * The buffer pool the bench runs with: BENCH_BUFFER_POOL, or what
 * STACK_DB_BUFFER_POOL asks for when that is larger.
 * @param {string} [asked] defaults to the configured STACK_DB_BUFFER_POOL
 */
function benchBufferPool (asked = loadConfig(childEnv({})).STACK_DB_BUFFER_POOL) {
  return sizeBytes(asked, 'STACK_DB_BUFFER_POOL') > sizeBytes(BENCH_BUFFER_POOL, 'BENCH_BUFFER_POOL') ? asked : BENCH_BUFFER_POOL
}

/** @param {Record<string, string>} [overrides] */
const benchConfig = (overrides = {}) => loadConfig(childEnv({ DB_NAME: BENCH_DB, LOG_LEVEL: 'warn', NODE_ENV: 'production', STACK_DB_BUFFER_POOL: benchBufferPool(), STACK_DB_REDO_LOG: BENCH_REDO_LOG, ...overrides }))

/**
 * Local Kafka and MariaDB (started if not running, never stopped), the bench database migrated.
 * @param {(m: string) => void} say @param {string} [dbName]
 * @param {{ migrations?: boolean }} [opts] migrations: false leaves the database's migrations
 *   to the caller (migrateAs, with the code under test's)
 */
async function ensureStack (say, dbName = BENCH_DB, { migrations = true } = {}) {
  const config = benchConfig({ DB_NAME: dbName })
  const { dbSocket, pids } = await stack.up(config, { databases: [dbName], say, migrations })
  return { config, dbSocket, pids }
}

/**
 * Applies the migrations of the code in `codeDir` (a snapshot of another
 * revision, or the working tree) to `dbName`, with that code's own migration
 * runner and directory: a campaign on an older revision measures it on the
 * schema it shipped with, not on the bench's own, which may be newer (a
 * migration that changes a column would otherwise be on both sides of a
 * comparison). The database is created when it does not exist. One that
 * already has a newer migration keeps it, and the older code runs on that
 * schema, as it would after a rollback.
 * @param {string} codeDir @param {string} dbName @param {Record<string, string>} env e.g. DB_SOCKET
 * @param {(m: string) => void} say
 */
async function migrateAs (codeDir, dbName, env, say) {
  // The database itself is the bench's to make (a campaign drops its scratch ledger).
  await ensureDatabase(benchConfig(env), dbName)
  const program = `
    const { loadConfig } = require(${JSON.stringify(path.join(codeDir, 'shared', 'src', 'config'))})
    const { createDb, migrateLatest } = require(${JSON.stringify(path.join(codeDir, 'shared', 'src', 'db'))})
    const db = createDb(loadConfig())
    migrateLatest(db).then((applied) => { console.log(JSON.stringify(applied)); return db.destroy() })
      .catch((err) => { console.error(err.message); process.exitCode = 1; return db.destroy() })`
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', program], { cwd: root, env: childEnv({ ...env, DB_NAME: dbName, LOG_LEVEL: 'warn' }) }, (err, stdout, stderr) => {
      const out = String(stderr || (err && err.message) || '').trim()
      // knex refuses a database that has migrations its directory lacks: ones
      // an earlier campaign on newer code applied.
      if (err && /migration directory is corrupt/.test(out)) {
        say(`${dbName} has migrations newer than the code under test, which runs on that schema (${out.replace(/^[^]*files are missing: /, '').slice(0, 300)})`)
        return resolve(undefined)
      }
      if (err) return reject(new Error(`migrating ${dbName} with the code under test failed: ${out.slice(-2000)}`))
      const applied = JSON.parse(String(stdout).trim().split('\n').pop() || '[]')
      if (applied.length) say(`applied ${applied.length} migration(s) of the code under test to ${dbName}`)
      resolve(undefined)
    })
  })
}

/** Every process started here that has not exited yet. */
const children = new Set()

/**
 * Stops (SIGTERM) every process started here that is still running: the bench
 * calls it when it is itself stopped, so that no switch is left running.
 * @returns {number} how many were signalled
 */
function stopChildren () {
  for (const proc of children) proc.kill('SIGTERM')
  return children.size
}

/**
 * @param {string} codeDir @param {string} script @param {Record<string, string>} env @param {(m: string) => void} say
 * @param {string[]} [nodeArgs] e.g. --cpu-prof
 * @param {string[]} [args] the script's own arguments
 */
function startProcess (codeDir, script, env, say, nodeArgs = [], args = []) {
  const proc = spawn(process.execPath, [...nodeArgs, path.join(codeDir, script), ...args], { cwd: root, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] })
  children.add(proc)
  proc.once('exit', () => children.delete(proc))
  let output = ''
  let stopping = false
  const keep = (/** @type {Buffer} */ d) => { output = (output + d).slice(-20000) }
  proc.stdout.on('data', keep)
  proc.stderr.on('data', keep)
  const exited = new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })))
  exited.then((/** @type {any} */ e) => { if (!stopping) say(`${script} exited (${e.code ?? e.signal}): ${output.slice(-2000)}`) })
  return {
    pid: /** @type {number} */ (proc.pid),
    output: () => output,
    exited,
    running: () => proc.exitCode === null && proc.signalCode === null,
    async stop (timeoutMs = 20000) {
      stopping = true
      if (proc.exitCode !== null || proc.signalCode !== null) return exited
      proc.kill('SIGTERM')
      const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs)
      const result = await exited
      clearTimeout(timer)
      return result
    }
  }
}

/** @param {string} url @param {() => boolean} alive @param {() => string} output */
async function waitHealthy (url, alive, output, timeoutMs = 60000) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (!alive()) throw new Error(`process exited before ${url} answered:\n${output().slice(-3000)}`)
    try { if ((await fetch(url)).status === 200) return } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`${url} not healthy after ${timeoutMs} ms:\n${output().slice(-3000)}`)
}

/**
 * Starts one Switchyard (api + handlers) with fresh topics and consumer groups.
 * @param {{ label: string, env?: Record<string, string>, codeDir?: string, say?: (m: string) => void, cpuProfDir?: string,
 *   nodeFlags?: string[], handlerProcesses?: string[] }} opts
 *   codeDir: a snapshot (snapshot.js), else the working tree; cpuProfDir: write V8 CPU profiles of every process there;
 *   nodeFlags: instead of NODE_FLAGS (experiments); handlerProcesses: instead of HANDLER_PROCESSES (experiments)
 */
async function startSwitch ({ label, env = {}, codeDir = root, say = () => {}, cpuProfDir, nodeFlags = NODE_FLAGS, handlerProcesses = HANDLER_PROCESSES }) {
  const runId = `${label}-${Date.now().toString(36)}${crypto.randomBytes(2).toString('hex')}`
  const [apiPort, adminPort] = [await freePort(), await freePort()]
  /** @type {number[]} */
  const healthPorts = []
  while (healthPorts.length < handlerProcesses.length) healthPorts.push(await freePort())
  const runEnv = {
    DB_NAME: BENCH_DB,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    KAFKA_TOPIC_PREFIX: `bench.${runId}.`,
    KAFKA_CLIENT_ID: `bench-${runId}`,
    API_PORT: String(apiPort),
    ADMIN_PORT: String(adminPort),
    ...env
  }
  const config = benchConfig(runEnv)
  const started = performance.now()
  await stack.createTopics(config)
  // The V8 flags the switch is deployed with (NODE_FLAGS), unless an experiment names others.
  const nodeArgs = [...nodeFlags, ...(cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : [])]
  const api = startProcess(codeDir, 'api-adapter/src/server.js', runEnv, say, nodeArgs)
  const handlers = handlerProcesses.map((names, i) => startProcess(codeDir, 'handlers/src/main.js', { ...runEnv, HANDLERS: names, HEALTH_PORT: String(healthPorts[i]) }, say, nodeArgs))
  const processes = [api, ...handlers]
  const apiUrl = `http://${config.API_HOST}:${apiPort}`
  const adminUrl = `http://${config.ADMIN_HOST}:${adminPort}`
  const healthUrls = healthPorts.map((port) => `http://${config.API_HOST}:${port}`)
  try {
    await Promise.all([
      waitHealthy(`${apiUrl}/health`, api.running, api.output),
      ...handlers.map((h, i) => waitHealthy(`${healthUrls[i]}/health`, h.running, h.output))
    ])
  } catch (err) {
    await Promise.all(processes.map((p) => p.stop()))
    throw err
  }
  const topics = allTopicNames(config)
  return {
    runId,
    config,
    env: runEnv,
    apiUrl,
    adminUrl,
    topics,
    startMs: Math.round(performance.now() - started),
    /** The handler processes are accounted together, as "handlers". */
    pids: { api: api.pid, handlers: handlers.map((h) => h.pid) },
    /** The handler processes' Prometheus metrics (per-stage timings and batch sizes). */
    handlersMetricsUrls: healthUrls.map((u) => `${u}/metrics`),
    /** The API process's Prometheus metrics (its Kafka requests). */
    apiMetricsUrl: `${apiUrl}/metrics`,
    alive: () => processes.every((p) => p.running()),
    output: () => ({ api: api.output().slice(-4000), ...Object.fromEntries(handlers.map((h, i) => [`handlers ${handlerProcesses[i]}`, h.output().slice(-4000)])) }),
    /** SIGTERM every process, then remove the run's topics and consumer groups from the shared broker. */
    async stop () {
      const exits = await Promise.all(processes.map((p) => p.stop()))
      const admin = createKafkaFromConfig(config).admin()
      try {
        await admin.connect()
        const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith(config.KAFKA_CLIENT_ID))
        if (groups.length) await admin.deleteGroups(groups).catch(() => {})
        await admin.deleteTopics({ topics }).catch(() => {})
      } finally {
        await admin.disconnect()
      }
      return exits
    }
  }
}

module.exports = { ensureStack, migrateAs, startSwitch, startProcess, stopChildren, benchConfig, benchBufferPool, BENCH_DB, SEEDED_DB, NODE_FLAGS, HANDLER_PROCESSES, root }
