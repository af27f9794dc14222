'use strict'

// A whole campaign: the stack, the generator's ceiling against the null
// switch, then the configurations interleaved (A B C A B C …) so that slow
// drift of the machine hits all of them alike.

const { ensureStack, migrateAs, benchConfig, root, HANDLER_PROCESSES, BENCH_DB } = require('./sut')
const { createDb } = require('../../../shared/src/db')
const { nullRun } = require('./null-run')
const { benchRun, warmBroker } = require('./run')
const { summarizeCampaign } = require('./summary')
const { configsOf, CONFIGS } = require('./profiles')
const { partsNamed, applyPriority } = require('./priority')
const { snapshotTree } = require('./snapshot')
const acc = require('./accounting')
const path = require('node:path')
const pino = require('pino')
const { speedProbe, workProbe, parallelProbe, fsyncProbe, againstReference } = require('./speed-probe')
const { wakeProbe } = require('./wake-probe')
const { probeSummary } = require('./report-md')
const { startDiskWatch, overallPhrase } = require('./disk-watch')
const { stackPaths } = require('../../../scripts/stack/paths')
const { failLeftoverCallbacks } = require('./ledger-facts')
const { createRepository } = require('../../../handlers/src/notification/repository')
const { createRetention } = require('../../../handlers/src/notification/retention')
const { ensureRoom } = require('./disk')
const { warmTransferIdIndexes } = require('./buffer-pool')

/** The configurations of a profile that run another revision (`--variant NAME=BASE:code=REV`). @param {any} profile @returns {string[]} */
const codeVariants = (profile) => profile.configs.filter((/** @type {string} */ c) => configsOf(profile)[c].code)

/**
 * Why a campaign cannot run its code= variants, or '' if it can: each of
 * their runs starts on the scratch ledger afresh, migrated by that run's own
 * code, so never on a kept or seeded ledger.
 * @param {any} profile @param {string} dbName @param {boolean} keepLedger
 */
function codeVariantConflict (profile, dbName, keepLedger) {
  const labels = codeVariants(profile)
  if (!labels.length || (dbName === BENCH_DB && !keepLedger)) return ''
  return `--variant ${labels[0]}: code= starts every run on the scratch ledger afresh, migrated by that run's code; it cannot run on ${keepLedger ? 'a kept ledger (--keep-ledger)' : `${dbName} (--db, --profile seeded)`}`
}

/** @param {import('knex').Knex} db @param {string} dbName */
async function ledgerSize (db, dbName) {
  const [rows] = await db.raw("SELECT TABLE_NAME AS t, TABLE_ROWS AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN ('transfer', 'transfer_state_change', 'participant_position_change')", [dbName])
  return Object.fromEntries(rows.map((/** @type {any} */ x) => [x.t, Number(x.n)]))
}

/**
 * Runs the notification handler's retention sweep to the end.
 * @param {import('knex').Knex} db @param {{ CALLBACK_RETENTION_HOURS: number | string }} config
 * @returns {Promise<number>} callbacks deleted
 */
async function purgeDueCallbacks (db, config) {
  const repository = createRepository(db, { instanceId: 'bench-campaign', leaseMs: 60000 })
  const retention = createRetention({ repository, logger: pino({ level: 'silent' }), retentionHours: Number(config.CALLBACK_RETENTION_HOURS), pauseMs: 0 })
  return retention.sweep()
}

/** What the database's tables take on disk, free pages included. @param {import('knex').Knex} db @param {string} dbName */
async function databaseBytes (db, dbName) {
  const [[row]] = await db.raw('SELECT COALESCE(SUM(DATA_LENGTH + INDEX_LENGTH + DATA_FREE), 0) AS b FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?', [dbName])
  return Number(row.b)
}

/**
 * @param {{ profileName: string, profile: any, command: string, code: string, dbName: string, keepLedger?: boolean,
 *   say: (m: string) => void }} opts keepLedger: run on the scratch ledger as earlier campaigns left it
 *   (the default starts it afresh, so that campaigns compare alike)
 */
async function runCampaign ({ profileName, profile, command, code, dbName, keepLedger = false, say }) {
  const started = new Date()
  const t0 = performance.now()
  // Variants that run another revision (code=): every run then starts on a
  // scratch ledger that its own code migrated, so the two schemas never meet.
  const codeLabels = codeVariants(profile)
  const conflict = codeVariantConflict(profile, dbName, keepLedger)
  if (conflict) throw new Error(conflict)
  const snapshot = snapshotTree(root, { from: code })
  /** @param {ReturnType<typeof snapshotTree>} snap @param {string} from */
  const describeCode = (snap, from) => `${snap.commit ? `commit ${snap.commit.slice(0, 10)}${from === 'head' ? ' (the last commit)' : ''}` : 'the working tree'}, copied to ${snap.dir} (digest ${snap.digest})`
  say(`code under test: ${describeCode(snapshot, code)}`)
  /** The code of each code= variant. @type {Record<string, ReturnType<typeof snapshotTree>>} */
  const variantCode = {}
  for (const label of codeLabels) {
    const from = /** @type {string} */ (configsOf(profile)[label].code)
    variantCode[label] = snapshotTree(root, { from })
    say(`code of ${label}: ${describeCode(variantCode[label], from)}`)
  }
  const { pids: stackPids, dbSocket } = await ensureStack((m) => say(`stack: ${m}`), dbName, { migrations: false })
  // The switch reaches the local MariaDB over its Unix socket (DB_SOCKET), as npm start does.
  const socketEnv = dbSocket ? { DB_SOCKET: dbSocket } : {}
  // The schema the code under test shipped with, not the bench's own.
  const migrateLedger = (dir = snapshot.dir) => migrateAs(dir, dbName, socketEnv, say)
  await migrateLedger()
  const config = benchConfig()
  // Durable small writes are timed where the local stack keeps the database's files.
  const probeDir = path.join(stackPaths(config).mariadb, 'probe')
  /** The machine right now (speed-probe.js). */
  const probeMachine = async () => ({ speedMs: speedProbe(), workMs: workProbe(), parallelMs: await parallelProbe(), fsyncMs: fsyncProbe(probeDir), wakeUs: await wakeProbe() })
  const openDb = () => createDb({ ...config, DB_POOL_MAX: 2 }, { database: dbName })
  let db = openDb()
  // One campaign per database at a time: a second one would fail the first one's gates and share its CPU.
  // The lock lives as long as this one-connection pool.
  const lock = createDb({ ...config, DB_POOL_MIN: 1, DB_POOL_MAX: 1 }, { database: dbName })
  /** Closes both pools and removes the code snapshot: on every way out. */
  const release = async () => {
    await Promise.all([db.destroy(), lock.destroy()])
    snapshot.remove()
    for (const snap of Object.values(variantCode)) snap.remove()
  }
  const lockName = `switchyard-bench:${dbName}`
  const [[free]] = await lock.raw('SELECT IS_FREE_LOCK(?) AS f', [lockName])
  if (!Number(free.f)) say(`another benchmark is running on ${dbName}; waiting for it (up to 15 minutes)`)
  const [[got]] = await lock.raw('SELECT GET_LOCK(?, 900) AS g', [lockName])
  if (!Number(got.g)) { await release(); throw new Error(`another benchmark still holds ${lockName}`) }
  // Only the bench's own scratch ledger is ever dropped; the seeded one took a while to load.
  const reset = dbName === BENCH_DB
    ? async (dir = snapshot.dir) => {
      await db.raw(`DROP DATABASE \`${dbName}\``)
      // Its connections were in the dropped database.
      await db.destroy()
      await migrateLedger(dir)
      db = openDb()
    }
    : null
  /** @type {any} */
  let bufferPool = null
  try {
    // What earlier campaigns left moves the figures (an older ledger is a
    // slower one: larger tables and indexes, and a day's transfers for the
    // prepare handler's bloom filter to load at start), so every campaign
    // starts on an empty scratch ledger unless told otherwise (with code=
    // variants, every run does, below).
    if (reset && !keepLedger && !codeLabels.length) {
      const held = await ledgerSize(db, dbName)
      if (held.transfer) say(`starting ${dbName} afresh (it held ~${held.transfer} transfers; --keep-ledger keeps it)`)
      await reset()
    }
    // A kept ledger (the seeded one, or --keep-ledger) may hold callbacks
    // past their retention from earlier campaigns: the switch's retention
    // sweep would delete them in the middle of the runs, in MariaDB, whose
    // CPU counts as the switch's own. Done now, before anything is measured.
    if (!reset || keepLedger) {
      const purged = await purgeDueCallbacks(db, { ...config, ...(profile.env || {}) })
      if (purged) say(`deleted ${purged} finished callbacks past their retention before the first run (the switch would have, during it)`)
    }
    await ensureRoom({
      profile,
      dir: stackPaths(config).mariadb,
      dbName,
      databaseBytes: () => databaseBytes(db, dbName),
      reset,
      say
    })
    bufferPool = await warmTransferIdIndexes(db, dbName, say)
  } catch (err) {
    await release()
    throw err
  }
  const firstProbe = await probeMachine()
  const { note: speedNote } = againstReference(firstProbe.workMs)
  if (speedNote) say(speedNote)
  // The disk's stalls, sampled all campaign long beside the database's files (disk-watch.js).
  const diskWatch = startDiskWatch(probeDir)
  // The stack's servers whose priority any run changes: every run sets theirs, and the end sets them back (priority.js).
  const priorityResets = partsNamed([profile.priority, ...profile.configs.map((/** @type {string} */ c) => configsOf(profile)[c].priority)])
  const result = {
    schema: 'switchyard-bench/1',
    profile: profileName,
    command,
    startedAt: started.toISOString(),
    finishedAt: '',
    durationS: 0,
    machine: acc.machineInfo(root),
    code: {
      from: snapshot.from,
      commit: snapshot.commit,
      digest: snapshot.digest,
      ...(codeLabels.length ? { variants: Object.fromEntries(Object.entries(variantCode).map(([label, v]) => [label, { from: v.from, commit: v.commit, digest: v.digest }])) } : {})
    },
    durable: await acc.durableSettings(db),
    database: dbName,
    ledgerBefore: await ledgerSize(db, dbName),
    // The indexes keyed by transfer id, read into the buffer pool when they fit (buffer-pool.js).
    bufferPool,
    settings: { ...profile, handlerProcesses: profile.handlerProcesses || HANDLER_PROCESSES, dbOverSocket: Boolean({ ...socketEnv, ...profile.env }.DB_SOCKET), configs: Object.fromEntries(profile.configs.map((/** @type {string} */ c) => [c, configsOf(profile)[c]])) },
    nullSwitch: /** @type {any} */ (null),
    /** The unmeasured load before the first run when the broker was young (run.js warmBroker). @type {any} */
    brokerWarmup: null,
    runs: /** @type {any[]} */ ([]),
    summary: /** @type {any} */ (null),
    problems: /** @type {string[]} */ ([]),
    // The machine probes (speed-probe.js) at the start and the end; each run has its own.
    machineProbe: { start: firstProbe, end: /** @type {any} */ (null) },
    /** The disk watcher's stalls over the whole campaign (disk-watch.js). @type {any} */
    diskWatch: null
  }
  try {
    if (profile.nullRates.length) {
      result.nullSwitch = await nullRun({ profile, say })
      say(`null switch: generator ceiling ${result.nullSwitch.ceilingRate}/s (p99 ≤ ${profile.nullP99TargetMs} ms), kept up with ${result.nullSwitch.keptUpRate}/s`)
    }
    const brokerAgeS = stackPids.kafka ? acc.processAgeS(stackPids.kafka) : null
    if (profile.brokerWarmup && brokerAgeS !== null && brokerAgeS < profile.brokerWarmup.youngerThanS) {
      const { rate, durationMs } = profile.brokerWarmup
      say(`Kafka started ${brokerAgeS} s ago: warming it with ${durationMs / 1000} s at ${rate}/s on the default pipeline, not measured`)
      result.brokerWarmup = { brokerAgeS, ...await warmBroker({ env: { ...socketEnv, ...CONFIGS.batched.env, ...(profile.env || {}), DB_NAME: dbName }, profile, db, stackPids, dbName, codeDir: snapshot.dir, say }) }
      if (result.brokerWarmup.errors.length) result.problems.push(`broker warm-up: ${result.brokerWarmup.errors[0].split('\n')[0]}`)
    } else {
      result.brokerWarmup = { brokerAgeS, skipped: true }
    }
    for (let rep = 1; rep <= profile.reps; rep++) {
      for (const label of profile.configs) {
        const codeDir = variantCode[label] ? variantCode[label].dir : snapshot.dir
        if (codeLabels.length && reset) {
          // Two revisions in one campaign: each run on a ledger its own code migrated.
          await reset(codeDir)
        }
        const leftover = await failLeftoverCallbacks(db)
        if (leftover) say(`recorded ${leftover} callbacks an earlier run left pending as FAILED`)
        const probe = await probeMachine()
        const config = configsOf(profile)[label]
        say(`run ${rep}/${profile.reps}: ${label} — ${config.description} (${probeSummary(probe)})`)
        const run = await benchRun({ label, env: { ...socketEnv, ...config.env, ...(profile.env || {}), DB_NAME: dbName }, handlerProcesses: config.handlerProcesses, priority: config.priority || profile.priority, priorityResets, profile, db, stackPids, dbName, codeDir, diskWatch, say })
        result.runs.push({ rep, machineProbe: probe, ...run })
        if (run.errors.length) result.problems.push(`${label} run ${rep}: ${run.errors[0].split('\n')[0]}`)
      }
    }
  } finally {
    // The stack's servers outlive the campaign: back to the nice they run at by default.
    try {
      applyPriority({}, stackPids, priorityResets)
    } catch (err) {
      say(`could not set the stack's servers back to nice 0: ${err && /** @type {Error} */ (err).message}`)
    }
    result.ledgerAfter = await ledgerSize(db, dbName).catch(() => null)
    result.diskWatch = diskWatch.overall()
    await diskWatch.stop()
    await release()
  }
  say(`disk watch: ${overallPhrase(result.diskWatch) || `failed (${result.diskWatch.failed})`}`)
  for (const run of result.runs) {
    for (const s of run.steps) if (!s.valid) result.problems.push(`${run.label} run ${run.rep} step ${s.offeredRate}/s INVALID: ${s.gates.filter((/** @type {any} */ g) => !g.ok).map((/** @type {any} */ g) => g.name).join(', ')}`)
    if (run.single && !run.single.valid) result.problems.push(`${run.label} run ${run.rep} single-transfer INVALID`)
  }
  result.machineProbe.end = await probeMachine()
  result.summary = summarizeCampaign(result.runs, result.settings.configs)
  result.finishedAt = new Date().toISOString()
  result.durationS = Math.round((performance.now() - t0) / 100) / 10
  return result
}

module.exports = { runCampaign, codeVariantConflict, purgeDueCallbacks }
