'use strict'

// What each profile measures. `full` is the reference campaign; `quick` is
// the same shape, shorter (under 5 minutes on a 2-core machine); `seeded`
// runs single-transfer latency and the ladder on a large seeded ledger.

const os = require('node:os')
const path = require('node:path')
const { names: handlerNames } = require('../../../handlers/src/registry')
const { UsageError } = require('../cli-args')
const { parsePriority, describePriority } = require('./priority')

/** The configurations compared back to back (PERF.md: compare in one run). */
const CONFIGS = {
  batched: { description: 'default pipeline (KAFKA_MAX_BATCH_SIZE=500), tracing off', env: {} },
  naive: { description: 'one message per batch (KAFKA_MAX_BATCH_SIZE=1), tracing off', env: { KAFKA_MAX_BATCH_SIZE: '1' } },
  traced: {
    description: 'default pipeline, tracing at 100% to files (TRACING_EXPORTERS=file, TRACING_SAMPLE_RATIO=1)',
    env: { TRACING_EXPORTERS: 'file', TRACING_SAMPLE_RATIO: '1', TRACING_DIR: path.join(os.tmpdir(), 'switchyard-bench-traces') }
  }
}

const common = {
  payers: 8,
  payees: 8,
  payeeDelayMs: 0,
  payeeFailRate: 0,
  // Before the single transfers, unmeasured: this many transfers from this
  // many closed-loop senders (run.js): a fresh process's code is not yet
  // optimised, and a running switch's is.
  warmup: 1000,
  warmupConcurrency: 8,
  // After the single transfers, an unmeasured load at half the ladder's first rate (run.js).
  warmupLoadMs: 4000,
  // A broker that started less than youngerThanS ago has not compiled its hot
  // paths yet (the JVM's JIT): before the first run, the default pipeline
  // carries this load, not measured, so the first configuration measured
  // does not pay for it (campaign.js).
  brokerWarmup: { youngerThanS: 600, rate: 200, durationMs: 60000 },
  idleMs: 3000,
  // The traced runs' span files are measured, then deleted, unless they go to this directory
  // (--keep-traces), where the gap report can read them.
  /** @type {string | null} */
  keepTracesDir: null,
  stopAfterFailures: 2,
  maxBacklogMs: 3000,
  drainTimeoutMs: 30000,
  targets: { p99TargetMs: 100, minSuccess: 0.9999 },
  nullMode: 'full',
  // Before each step, wait (bounded) until processes other than the bench's use under 25% of a core.
  quiet: { maxOtherPctCore: 25, maxWaitMs: 60000 },
  // Steps per run that may be measured again because other processes took CPU during them.
  contendedRetries: 3,
  nullP99TargetMs: 10,
  // Steps of 100/s from 800/s up: the tracing target (at most 10% off the
  // maximum rate) cannot be read off a ladder whose steps are 20% apart.
  rates: [50, 100, 200, 300, 400, 600, 800, 900, 1000, 1100, 1200, 1300, 1400, 1500, 1700, 2000],
  configs: Object.keys(CONFIGS)
}

const full = {
  ...common,
  single: 500,
  stepMs: 20000,
  nullRates: [500, 1000, 2000, 3000, 4000, 5000, 6000, 8000],
  nullStepMs: 10000,
  reps: 3
}

const PROFILES = {
  full,
  quick: {
    ...common,
    // A fifth of the full profile's: a p50 for a rough profile, and 2–3 s less per configuration.
    single: 100,
    // 300, not the full profile's 1,000: the naive pipeline takes it at ~60/s.
    warmup: 300,
    // 7 s, with a 4.9 s steady-state window: at 8 s the profile took 291–296 s on the
    // 7 December Intel Xeon VM, too close to its 5 minutes.
    stepMs: 7000,
    warmupLoadMs: 2000,
    // 20 s, not the full profile's 60: a fresh machine's broker is always young, and the
    // profile must stay under 5 minutes where its ladders reach 1,500/s.
    brokerWarmup: { ...common.brokerWarmup, durationMs: 20000 },
    // A coarser ladder than the full profile's: once the switch held 1,200/s,
    // every ladder ran twelve steps and the profile passed 5 minutes.
    rates: [100, 200, 400, 600, 800, 1000, 1200, 1500, 2000],
    // The generator's ceiling up to 4,000/s (the full profile goes on to 8,000): the step past it
    // drains a backlog for as long as the step, time the profile does not have.
    nullRates: [1000, 2000, 4000],
    nullStepMs: 4000,
    drainTimeoutMs: 15000,
    // Bounded so that --quick stays under 5 minutes even on a busy machine.
    quiet: { ...common.quiet, maxWaitMs: 8000 },
    // One step past capacity ends a ladder: on a VM 2.5–2.9× slower than the README's machine
    // the second one (10–16 s each with its drain) took the profile to 5 min 23 s.
    stopAfterFailures: 1,
    contendedRetries: 1,
    reps: 1
  },
  // The full profile on the large seeded ledger: no null-switch ladder, the default pipeline only.
  seeded: {
    ...full,
    nullRates: [],
    nullStepMs: 0,
    reps: 1,
    configs: ['batched']
  }
}

/**
 * `a,b|c` → ['a,b', 'c']: each handler in exactly one process.
 * @param {string} s
 */
function parseHandlerProcesses (s) {
  const known = handlerNames()
  const groups = s.split('|').map((g) => g.split(',').map((n) => n.trim()).filter(Boolean))
  const all = groups.flat()
  const unknown = all.filter((n) => !known.includes(n))
  const missing = known.filter((n) => !all.includes(n))
  const twice = all.filter((n, i) => all.indexOf(n) !== i)
  if (groups.some((g) => !g.length) || unknown.length || missing.length || twice.length) {
    throw new UsageError(`--handler-processes: every handler (${known.join(', ')}) in exactly one process, processes separated by |` +
      `${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}${missing.length ? `; missing: ${missing.join(', ')}` : ''}${twice.length ? `; twice: ${twice.join(', ')}` : ''}`)
  }
  return groups.map((g) => g.join(','))
}

/**
 * ['a,b', 'c'] → 'a + b | c', as reports and descriptions show a split.
 * @param {string[]} groups
 */
const describeProcesses = (groups) => groups.map((g) => g.split(',').join(' + ')).join(' | ')

/**
 * `K=V,K=V` → { K: 'V' }; only names the configuration schema knows.
 * @param {string} s @param {string} [flag] named in the error
 * @returns {Record<string, string>}
 */
function parseEnv (s, flag = '--env') {
  const { schema } = require('../../../shared/src/config-schema')
  /** @type {Record<string, string>} */
  const env = {}
  for (const pair of s.split(',').filter(Boolean)) {
    const eq = pair.indexOf('=')
    const key = pair.slice(0, eq).trim()
    if (eq < 1 || !schema[key]) throw new UsageError(`${flag}: ${pair} is not NAME=value with a known configuration name`)
    env[key] = pair.slice(eq + 1).trim()
  }
  return env
}

/** A variant's settings besides configuration names. */
const VARIANT_KEYS = ['processes', 'priority', 'code']

/**
 * A variant (`--variant NAME=BASE:K=V,K=V`): one of the configurations above
 * with some settings changed, run interleaved with it in the same campaign and
 * compared with it in the summary (PERF.md: compare in one run, A B A B).
 * Besides configuration names, `processes=a+b|c` runs the handlers split
 * over processes as `--handler-processes a,b|c` would (`+` joins handlers in
 * one process, since commas separate the settings), so a split, too, is
 * measured beside its base instead of in a campaign of its own; and
 * `priority=handlers:-10+db:-10` runs those processes at that nice value, as
 * `--priority` would for the whole campaign (priority.js); and `code=<revision>`
 * runs another revision of the switch (a commit, `head` or `working`) beside
 * the campaign's `--code`, so two versions are compared in the same machine
 * minutes instead of in two campaigns an hour apart (campaign.js then starts
 * every run on a scratch ledger migrated by that run's own code).
 * @param {string} spec
 * @returns {{ name: string, config: { description: string, base: string, env: Record<string, string>, changes: Record<string, string>, handlerProcesses?: string[], priority?: Record<string, number>, code?: string } }}
 */
function parseVariant (spec) {
  const m = /^([a-z][a-z0-9-]*)=([a-z]+):(.+)$/.exec(spec.trim())
  if (!m) throw new UsageError(`--variant: ${spec} is not NAME=BASE:K=V,K=V (a lower-case name, then one of ${Object.keys(CONFIGS).join(', ')})`)
  const [, name, base, settings] = m
  if (CONFIGS[name]) throw new UsageError(`--variant: ${name} is already a configuration; give the variant a name of its own`)
  if (!CONFIGS[base]) throw new UsageError(`--variant ${name}: unknown configuration ${base}; known: ${Object.keys(CONFIGS).join(', ')}`)
  const pairs = settings.split(',').map((p) => p.trim())
  /** The settings that are not configuration names (processes=, priority=), each once at most. @type {Record<string, string>} */
  const special = {}
  for (const p of pairs) {
    const key = VARIANT_KEYS.find((k) => p.startsWith(`${k}=`))
    if (!key) continue
    if (key in special) throw new UsageError(`--variant ${name}: ${key}= given twice`)
    special[key] = p.slice(key.length + 1)
  }
  const handlerProcesses = 'processes' in special ? parseHandlerProcesses(special.processes.replace(/\+/g, ',')) : undefined
  const priority = 'priority' in special ? parsePriority(special.priority, `--variant ${name}`) : undefined
  if ('code' in special && !/^[\w./~^@{}-]+$/.test(special.code)) throw new UsageError(`--variant ${name}: code=${special.code} is not a revision (working, head, a commit or a ref)`)
  const code = 'code' in special ? special.code : undefined
  const changes = parseEnv(pairs.filter((p) => !VARIANT_KEYS.some((k) => p.startsWith(`${k}=`))).join(','), `--variant ${name}`)
  if (!Object.keys(changes).length && !handlerProcesses && !priority && !code) throw new UsageError(`--variant ${name}: no setting changed`)
  const described = [
    ...(code ? [`the code of ${code}`] : []),
    ...Object.entries(changes).map(([k, v]) => `${k}=${v}`),
    ...(handlerProcesses ? [`the handlers in ${handlerProcesses.length} processes (${describeProcesses(handlerProcesses)})`] : []),
    ...(priority ? [describePriority(priority)] : [])
  ]
  return {
    name,
    config: {
      description: `${base} with ${described.join(', ')}`,
      base,
      env: { ...CONFIGS[base].env, ...changes },
      changes,
      ...(handlerProcesses ? { handlerProcesses } : {}),
      ...(priority ? { priority } : {}),
      ...(code ? { code } : {})
    }
  }
}

/**
 * Every configuration a profile can run: the fixed ones and its variants.
 * @param {{ variants?: Record<string, { description: string, env: Record<string, string>, handlerProcesses?: string[], priority?: Record<string, number>, code?: string }> }} profile
 * @returns {Record<string, { description: string, env: Record<string, string>, base?: string, handlerProcesses?: string[], priority?: Record<string, number>, code?: string }>}
 */
const configsOf = (profile) => ({ ...CONFIGS, ...(profile.variants || {}) })

/**
 * The rate of the unmeasured warm-up load before a ladder (run.js, null-run.js): half its first rate.
 * @param {number[]} rates the ladder's
 */
const warmupLoadRate = (rates) => Math.max(10, Math.round(rates[0] / 2))

module.exports = { PROFILES, CONFIGS, parseHandlerProcesses, describeProcesses, warmupLoadRate, parseEnv, parseVariant, configsOf }
