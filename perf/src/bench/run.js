'use strict'

// One benchmark run: a fresh Switchyard (own topics and consumer groups),
// fresh simulated participants, then single-transfer latency and a rate
// ladder. Every step is wrapped in the same accounting (CPU, SQL, Kafka) and
// checked by the validity gates.

const { startSwitch } = require('./sut')
const { applyPriority, describePriority } = require('./priority')
const { startSimulators } = require('../load/fast-participants')
const { createClient } = require('../load/client')
const { runOpenStep, runSequential } = require('./generator')
const { summarizeStep, ladderDone, maxSustainable, maxKeptUp } = require('./schedule')
const { evaluateGates } = require('./gates')
const { settle, positionSums, stepFacts } = require('./ledger-facts')
const acc = require('./accounting')
const { stagesOfTexts, stageDelta, stagesLine } = require('./stage-breakdown')
const { requestsOfTexts, requestsDelta, requestsLine } = require('./kafka-requests')
const { scrapeAll } = require('./scrape')
const { warmupLoadRate } = require('./profiles')
const { stallsPhrase } = require('./disk-watch')
const { createKafkaFromConfig } = require('../../../shared/src/kafka')
const fs = require('node:fs')
const path = require('node:path')

/** @param {string} dir */
function dirBytes (dir) {
  try { return fs.readdirSync(dir).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0) } catch { return 0 }
}

/**
 * Every switch process's metrics, each read once: the handler processes' stage
 * breakdown and every process's Kafka requests (null parts when one did not answer).
 * @param {{ apiMetricsUrl: string, handlersMetricsUrls: string[] }} sut
 */
async function scrapeSwitch (sut) {
  const texts = await scrapeAll([sut.apiMetricsUrl, ...sut.handlersMetricsUrls])
  return { stages: texts && stagesOfTexts(texts.slice(1)), requests: texts && requestsOfTexts(texts) }
}

/**
 * The Node.js processes' main threads (their event loops) in % of a core, for
 * the step's line: e.g. " (event loops: handlers 44%, api 31%, generator 20%)".
 * @param {{ processes: Record<string, { mainThreadPctCore?: number }> }} cpu
 */
function eventLoopsPhrase (cpu) {
  const parts = ['handlers', 'api', 'generator']
    .filter((name) => cpu.processes[name] && cpu.processes[name].mainThreadPctCore !== undefined)
    .map((name) => `${name} ${Math.round(/** @type {number} */ (cpu.processes[name].mainThreadPctCore))}%`)
  return parts.length ? ` (event loops: ${parts.join(', ')})` : ''
}

/**
 * Accounting and gates around one measurement.
 * @param {{ db: import('knex').Knex, admin: import('kafkajs').Admin, pids: Record<string, number | number[] | null>, sut: any, sim: any, dbName: string,
 *   quiet: { maxOtherPctCore: number, maxWaitMs: number }, diskWatch?: ReturnType<typeof import('./disk-watch').startDiskWatch> | null }} ctx
 * @param {() => Promise<any>} measure resolves with { ids, accepted, committedCallbacks, … }
 */
async function accounted (ctx, measure) {
  const stale = await settle(ctx.db, 60000)
  const quiet = await acc.waitForQuiet(ctx.pids, ctx.quiet)
  const positionsBefore = await positionSums(ctx.db)
  const others = await acc.otherDbClients(ctx.db, ctx.dbName)
  const [sqlA, kA] = await Promise.all([acc.sqlCounters(ctx.db), acc.topicMessages(ctx.admin, ctx.sut.topics)])
  const notifiedBefore = ctx.sim.stats.payeeNotifications
  const a = await scrapeSwitch(ctx.sut)
  const cpuA = acc.cpuSnapshot(ctx.pids)
  const measuredFrom = Date.now()
  const result = await measure()
  const disk = ctx.diskWatch ? ctx.diskWatch.within(measuredFrom, Date.now()) : null
  // The payees' COMMITTED notifications are part of a transfer's work.
  const deadline = Date.now() + 10000
  while (ctx.sim.stats.payeeNotifications - notifiedBefore < result.committedCallbacks && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  const cpuB = acc.cpuSnapshot(ctx.pids)
  const b = await scrapeSwitch(ctx.sut)
  const stages = stageDelta(a.stages, b.stages)
  const [sqlB, kB] = await Promise.all([acc.sqlCounters(ctx.db), acc.topicMessages(ctx.admin, ctx.sut.topics)])
  for (const o of await acc.otherDbClients(ctx.db, ctx.dbName)) if (!others.includes(o)) others.push(o)
  const n = result.committedCallbacks
  const facts = await stepFacts(ctx.db, { ids: result.ids, accepted: result.accepted, committedCallbacks: n, positionsBefore })
  const { valid, gates } = evaluateGates(facts)
  if (!valid) for (const g of gates.filter((x) => !x.ok)) console.error(`[bench] INVALID: gate "${g.name}" failed: ${g.detail}`)
  return {
    result,
    valid,
    gates,
    staleInFlightBefore: stale,
    quietBefore: quiet,
    cpu: acc.cpuDelta(cpuA, cpuB, n),
    sql: { ...acc.sqlDelta(sqlA, sqlB, n), otherClientsOnServer: others },
    kafka: { ...acc.kafkaDelta(kA, kB, n, ctx.sut.config.KAFKA_TOPIC_PREFIX), requests: requestsDelta(a.requests, b.requests, n) },
    payeeNotificationsMissing: Math.max(0, n - (ctx.sim.stats.payeeNotifications - notifiedBefore)),
    stages,
    // The disk's stalls while the load ran and drained (disk-watch.js).
    disk
  }
}

/**
 * One step of the ladder at `rate`, accounted and gated.
 * @param {any} ctx @param {number} rate @param {any} profile
 */
async function measureStep (ctx, rate, profile) {
  const s = await accounted(ctx, () => runOpenStep({ sim: ctx.sim, apiUrl: ctx.sut.apiUrl, rate, durationMs: profile.stepMs, maxBacklogMs: profile.maxBacklogMs, drainTimeoutMs: profile.drainTimeoutMs }))
  const r = s.result
  return {
    ...summarizeStep(r, profile.targets),
    valid: s.valid,
    gates: s.gates,
    contended: s.cpu.otherProcessesPctCore > profile.quiet.maxOtherPctCore,
    quietBefore: s.quietBefore,
    generator: { sendLag: r.sendLag, acceptLatency: r.acceptLatency, httpErrors: r.httpErrors, callbackErrors: r.callbackErrors, unanswered: r.unanswered, drainMs: r.drainMs, stoppedEarly: r.stoppedEarly },
    cpu: s.cpu,
    sql: s.sql,
    kafka: s.kafka,
    stages: s.stages,
    disk: s.disk,
    simulators: { ...ctx.sim.stats },
    /** @type {any[] | undefined} */
    discardedContendedAttempts: undefined
  }
}

/**
 * @param {{ label: string, env: Record<string, string>, handlerProcesses?: string[], priority?: Record<string, number>, priorityResets?: string[],
 *   profile: any, db: import('knex').Knex, stackPids: Record<string, number | null>, dbName: string, codeDir: string, say: (m: string) => void,
 *   diskWatch?: ReturnType<typeof import('./disk-watch').startDiskWatch> | null }} opts
 *   handlerProcesses: a variant's own split of the handlers (profiles.js), else the campaign's
 *   priority, priorityResets: the nice values of this run's processes, and the stack's servers any run changes (priority.js)
 */
async function benchRun ({ label, env, handlerProcesses, priority, priorityResets = [], profile, db, stackPids, dbName, codeDir, say, diskWatch = null }) {
  // Trace files of this run only: their size is part of tracing's cost; removed afterwards
  // unless the campaign keeps them (--keep-traces) for the gap report.
  const traceRoot = env.TRACING_DIR ? profile.keepTracesDir || env.TRACING_DIR : null
  const traceDir = traceRoot ? path.join(traceRoot, `${label}-${Date.now().toString(36)}`) : null
  if (traceDir) env = { ...env, TRACING_DIR: traceDir }
  let sut
  /** @type {Record<string, number>} */
  let applied = {}
  try {
    sut = await startSwitch({ label, env, codeDir, say, cpuProfDir: profile.cpuProfDir, nodeFlags: profile.nodeFlags, handlerProcesses: handlerProcesses || profile.handlerProcesses })
    applied = applyPriority(priority, { ...sut.pids, ...stackPids }, priorityResets)
  } catch (err) {
    if (sut) await sut.stop()
    say(`${label}: switch did not start: ${err && err.message}`)
    return { label, env, runId: null, startMs: null, single: null, idle: null, steps: [], maxSustainableRate: 0, maxKeptUpRate: 0, errors: [String(err && err.stack ? err.stack : err)] }
  }
  say(`${label}: switch up in ${sut.startMs} ms (topics ${sut.config.KAFKA_TOPIC_PREFIX}*)${Object.keys(applied).length ? `; ${describePriority(applied)}` : ''}`)
  const sim = await startSimulators({ prefix: `b${sut.runId.slice(-6)}`, payers: profile.payers, payees: profile.payees, apiUrl: sut.apiUrl, delayMs: profile.payeeDelayMs, failRate: profile.payeeFailRate })
  // A Kafka admin client per run: one that has seen a deleted topic keeps asking for it.
  const admin = createKafkaFromConfig(sut.config).admin()
  await admin.connect()
  const out = { label, env, priority: applied, runId: sut.runId, startMs: sut.startMs, single: null, idle: null, warmup: /** @type {{ count: number, concurrency: number, ms: number } | null} */ (null), warmupLoad: /** @type {any} */ (null), steps: [], maxSustainableRate: 0, maxKeptUpRate: 0, traceBytes: /** @type {number | null} */ (null), errors: [] }
  try {
    const client = createClient({ apiUrl: sut.apiUrl, adminUrl: sut.adminUrl, hubName: sut.config.HUB_NAME })
    for (const p of [...sim.payers, ...sim.payees]) await client.provision(p, { ndc: '10000000000', deposit: '10000000000' })
    // Freshly started processes run their code in V8's interpreter and
    // baseline tiers until it is hot enough to optimise: after 30 warm-up
    // transfers the handler process still spent a tenth of its samples in
    // the optimising compiler while single transfers were measured, and used
    // 40-90% more CPU per transfer than after 1,500 (docs/performance.md,
    // twenty-sixth round). A running switch is warm, so the single transfers
    // are measured after a warm-up from a few closed-loop senders, which no
    // pipeline can fall behind on.
    const warmStart = performance.now()
    const warm = await runSequential({ sim, apiUrl: sut.apiUrl, count: profile.warmup, concurrency: profile.warmupConcurrency, timeoutMs: 60000 })
    if (warm.failed) throw new Error(`warm-up: ${warm.failed} of ${warm.count} transfers failed: ${JSON.stringify(sim.stats)} ${JSON.stringify(sut.output())}`)
    out.warmup = { count: warm.count, concurrency: profile.warmupConcurrency, ms: Math.round(performance.now() - warmStart) }
    const ctx = { db, admin, sut, sim, dbName, diskWatch, quiet: profile.quiet, pids: { api: sut.pids.api, handlers: sut.pids.handlers, ...stackPids, generator: process.pid } }

    // What the processes use with nothing to do: the fixed cost inside every per-transfer figure.
    const idleA = acc.cpuSnapshot(ctx.pids)
    await new Promise((resolve) => setTimeout(resolve, profile.idleMs))
    out.idle = acc.cpuDelta(idleA, acc.cpuSnapshot(ctx.pids), 0)
    if (profile.single) {
      const s = await accounted(ctx, () => runSequential({ sim, apiUrl: sut.apiUrl, count: profile.single }))
      out.single = { count: s.result.count, failed: s.result.failed, latency: s.result.latency, valid: s.valid, gates: s.gates, cpu: s.cpu, sql: s.sql, kafka: s.kafka, disk: s.disk }
      const stalls = diskWatch && stallsPhrase(s.disk, diskWatch.thresholdMs)
      say(`${label}: single transfer p50 ${s.result.latency.p50} ms, p99 ${s.result.latency.p99} ms (${s.result.count}, ${s.result.failed} failed)${stalls ? `; ${stalls}` : ''}${s.valid ? '' : ' INVALID'}`)
    }
    if (profile.warmupLoadMs > 0 && (profile.rates.length || profile.warmupRate)) {
      // Fresh processes are cold (compiled code, connection pools, caches), and
      // a ladder that starts at a high rate would measure them warming up under
      // its first step instead of the switch: a short load at half the first
      // rate, not measured, warms them the way a running switch is warm.
      const rate = profile.warmupRate || warmupLoadRate(profile.rates)
      const w = await runOpenStep({ sim, apiUrl: sut.apiUrl, rate, durationMs: profile.warmupLoadMs, maxBacklogMs: profile.maxBacklogMs, drainTimeoutMs: profile.drainTimeoutMs })
      out.warmupLoad = { rate, durationMs: profile.warmupLoadMs, sent: w.sent, committed: w.committedCallbacks }
      await settle(db, 60000)
    }
    let retries = profile.contendedRetries
    for (const rate of profile.rates) {
      if (!sut.alive()) throw new Error(`switch process died: ${JSON.stringify(sut.output())}`)
      let step = await measureStep(ctx, rate, profile)
      const discarded = []
      // Other users of the machine are not the system's behaviour: a step that failed
      // while they took CPU is measured again (once; the attempt is kept in the results).
      while (!step.meetsTarget && step.contended && retries > 0) {
        retries--
        discarded.push({ latency: step.latency, success: step.success, achievedRate: step.achievedRate, otherProcessesPctCore: step.cpu.otherProcessesPctCore, reasons: step.reasons })
        say(`${label}: ${rate}/s missed the target while other processes used ${step.cpu.otherProcessesPctCore}% of a core — measuring it again`)
        step = await measureStep(ctx, rate, profile)
      }
      if (discarded.length) step.discardedContendedAttempts = discarded
      out.steps.push(step)
      const stalls = diskWatch && stallsPhrase(step.disk, diskWatch.thresholdMs)
      say(`${label}: ${rate}/s → ${step.achievedRate}/s, p50 ${step.latency.p50} p99 ${step.latency.p99} max ${step.latency.max} ms, success ${(step.success * 100).toFixed(2)}%, ` +
        `${step.sql.statementsPerTransfer} SQL (${acc.kilobytes(step.sql.sqlBytesPerTransfer)})/${step.sql.commitsPerTransfer} commits/${step.sql.pageReadsPerTransfer} disk page reads/${step.sql.pagesWrittenPerTransfer} pages written/${acc.kilobytes(step.sql.redoBytesPerTransfer)} redo per transfer, CPU ${step.cpu.ourMsPerTransfer} ms/transfer${eventLoopsPhrase(step.cpu)}${stalls ? `; ${stalls}` : ''}` +
        `${step.contended ? ` [other processes used ${step.cpu.otherProcessesPctCore}% of a core]` : ''}${step.meetsTarget ? '' : ` — misses target: ${step.reasons.join('; ')}`}${step.valid ? '' : ' — INVALID (gates)'}`)
      if (step.stages) say(`${label}: ${rate}/s per stage (records/transaction, mean ms): ${stagesLine(step.stages)}`)
      if (step.kafka.requests) say(`${label}: ${rate}/s Kafka requests per transfer: ${requestsLine(step.kafka.requests)}; messages ${step.kafka.perTransfer}`)
      if (ladderDone(out.steps, profile.stopAfterFailures, profile.targets.minSuccess)) break
    }
    // Leave nothing in flight for the next run: wait for the last step's stragglers to finish or expire.
    const left = await settle(db, profile.stepMs + 45000)
    if (left) out.errors.push(`${left} transfers still in flight when the run ended`)
    out.maxSustainableRate = maxSustainable(out.steps)
    out.maxKeptUpRate = maxKeptUp(out.steps, profile.targets.minSuccess)
  } catch (err) {
    out.errors.push(String(err && err.stack ? err.stack : err))
    say(`${label}: run failed: ${err && err.message}`)
  } finally {
    await admin.disconnect()
    await sim.close()
    await sut.stop()
    if (traceDir) {
      out.traceBytes = dirBytes(traceDir)
      if (profile.keepTracesDir) {
        out.traceDir = traceDir
        say(`${label}: trace files kept in ${traceDir} (npm run gaps -- ${traceDir})`)
      } else {
        fs.rmSync(traceDir, { recursive: true, force: true })
      }
    }
  }
  return out
}

/**
 * A load that is not measured, on the default pipeline: for a freshly started
 * broker, whose JVM compiles its hot paths in the first minutes of work (the
 * first configuration of a campaign on a broker started seconds before ran
 * single transfers a third slower and doubled its p99 at 100/s).
 * @param {{ env: Record<string, string>, profile: any, db: import('knex').Knex,
 *   stackPids: Record<string, number | null>, dbName: string, codeDir: string, say: (m: string) => void }} opts
 */
async function warmBroker ({ env, profile, db, stackPids, dbName, codeDir, say }) {
  const { rate, durationMs } = profile.brokerWarmup
  const run = await benchRun({
    label: 'broker-warmup',
    env,
    profile: { ...profile, warmup: 30, single: 0, idleMs: 0, rates: [], warmupRate: rate, warmupLoadMs: durationMs, cpuProfDir: undefined, keepTracesDir: null },
    db,
    stackPids,
    dbName,
    codeDir,
    say
  })
  const { sent, committed } = run.warmupLoad || { sent: 0, committed: 0 }
  return { rate, durationMs, sent, committed, errors: run.errors }
}

module.exports = { benchRun, warmBroker, eventLoopsPhrase }
