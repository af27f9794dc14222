#!/usr/bin/env node
'use strict'

// npm run bench -- [--quick | --profile full|quick|seeded] [--out perf/results]
//   [--configs batched,naive,traced] [--rates 100,200] [--step-ms 8000] [--reps 3] [--single 500] [--no-null]
//   [--code working|head|<revision>]  the working tree as it is (default), the last commit, or
//                           any commit (measured with today's harness); copied once, so every run
//                           of the campaign starts the same code
//   [--db name]             default switchyard_bench; switchyard_bench_seeded for --profile seeded
//   [--keep-ledger]         run on switchyard_bench as earlier campaigns left it (by default each
//                           campaign starts it afresh; the seeded ledger is never dropped)
//   [--env K=V,K=V]         extra configuration for every run of the switch (experiments; printed in the report)
//   [--variant NAME=BASE:K=V,K=V]  (repeatable) also run BASE (batched, naive or traced) with these
//                           settings, interleaved with BASE, and compare the two in the summary
//   [--p99-target ms]       the latency bound of a sustained step instead of 100 ms (a slower machine's
//                           knee; printed in the report and beside every maximum it sets)
//   [--cpu-prof dir]        write V8 CPU profiles of the api and handler processes to dir (costs speed)
//   [--keep-traces dir]     keep the traced runs' span files under dir, for `npm run gaps`
//   [--node-flags="…"]      the switch's Node flags instead of the ones it is deployed with (experiments; printed in the report)
//   [--handler-processes "prepare,position,fulfil,timeout|notification"]
//                           which handlers share a process, processes separated by | (default: sut.js HANDLER_PROCESSES)
//   [--priority handlers:-20,db:-20|none]  run those processes (handlers, api, db, kafka) at that nice
//                           value (default as root: handlers:-20,db:-20; none: all at 0; priority.js)
//
// Starts what it measures (the local stack if needed, then per run the
// api-adapter and the handlers as separate processes with fresh topics),
// drives them with simulated participants at constant arrival rates, checks
// the validity gates on every step and writes perf/results/<timestamp>.json
// and .md (+ .svg charts). Durable settings throughout; see docs/benchmarks.md.

const path = require('node:path')
const { parseCli, wholeNumber, positiveList, runCli, UsageError } = require('../cli-args')
const { PROFILES, CONFIGS, parseHandlerProcesses, parseEnv, parseVariant } = require('./profiles')
const { parsePriority, defaultPriority } = require('./priority')
const { isRoot } = require('../../../scripts/stack/proc')
const { runCampaign, codeVariantConflict } = require('./campaign')
const { writeResults } = require('./report')
const { root, BENCH_DB, SEEDED_DB, stopChildren } = require('./sut')

const USAGE = 'npm run bench -- [--quick | --profile full|quick|seeded] [--out dir] [--configs batched,naive,traced] [--rates 100,200,…] [--step-ms n] [--reps n] [--single n] [--no-null] [--code working|head|<revision>] [--db name] [--keep-ledger] [--env K=V,…] [--variant NAME=BASE:K=V,…] [--p99-target ms] [--cpu-prof dir] [--keep-traces dir] [--node-flags="…"] [--handler-processes "a,b|c"] [--priority handlers:-20,db:-20|none]'

/**
 * The campaign that the command line asks for, or null for --help.
 * @param {string[]} [args]
 */
function options (args = process.argv.slice(2)) {
  const { values, help } = parseCli({
    args,
    options: {
      quick: { type: 'boolean', default: false },
      profile: { type: 'string' },
      out: { type: 'string', default: path.join(root, 'perf', 'results') },
      configs: { type: 'string' },
      variant: { type: 'string', multiple: true },
      rates: { type: 'string' },
      'step-ms': { type: 'string' },
      reps: { type: 'string' },
      single: { type: 'string' },
      'no-null': { type: 'boolean', default: false },
      code: { type: 'string', default: 'working' },
      db: { type: 'string' },
      'keep-ledger': { type: 'boolean', default: false },
      env: { type: 'string' },
      'p99-target': { type: 'string' },
      'cpu-prof': { type: 'string' },
      'keep-traces': { type: 'string' },
      'node-flags': { type: 'string' },
      'handler-processes': { type: 'string' },
      priority: { type: 'string' }
    }
  })
  if (help) return null
  const name = values.profile || (values.quick ? 'quick' : 'full')
  if (!PROFILES[name]) throw new UsageError(`unknown profile ${name}; known: ${Object.keys(PROFILES).join(', ')}`)
  const profile = { ...PROFILES[name] }
  if (values.configs) {
    profile.configs = values.configs.split(',').map((c) => c.trim())
    for (const c of profile.configs) if (!CONFIGS[c]) throw new UsageError(`unknown config ${c}; known: ${Object.keys(CONFIGS).join(', ')}`)
  }
  if (values.variant) {
    profile.variants = {}
    const configs = [...profile.configs]
    for (const spec of values.variant) {
      const { name, config } = parseVariant(spec)
      if (profile.variants[name]) throw new UsageError(`--variant ${name} is given twice`)
      if (!configs.includes(config.base)) throw new UsageError(`--variant ${name} is compared with ${config.base}, which the campaign does not run (--configs ${profile.configs.join(',')})`)
      profile.variants[name] = config
      // Right after its base (and the base's earlier variants): each repetition runs A, A', B, B', …
      let at = configs.indexOf(config.base) + 1
      while (at < configs.length && profile.variants[configs[at]] && profile.variants[configs[at]].base === config.base) at++
      configs.splice(at, 0, name)
    }
    profile.configs = configs
  }
  if (values.rates !== undefined) profile.rates = positiveList(values, 'rates', { what: 'transfers per second such as 100,200,400' })
  if (values['step-ms'] !== undefined) profile.stepMs = wholeNumber(values, 'step-ms', 1000)
  if (values.reps !== undefined) profile.reps = wholeNumber(values, 'reps', 1)
  if (values.single !== undefined) profile.single = wholeNumber(values, 'single', 0)
  if (values['no-null']) profile.nullRates = []
  if (!values.code) throw new UsageError('--code is working, head or a git revision')
  if (values.env) profile.env = parseEnv(values.env)
  if (values['p99-target'] !== undefined) {
    const ms = Number(values['p99-target'])
    if (!(ms > 0)) throw new UsageError('--p99-target is a number of milliseconds')
    profile.targets = { ...profile.targets, p99TargetMs: ms }
  }
  if (values['cpu-prof']) profile.cpuProfDir = path.resolve(values['cpu-prof'])
  if (values['keep-traces']) profile.keepTracesDir = path.resolve(values['keep-traces'])
  if (values['node-flags'] !== undefined) profile.nodeFlags = values['node-flags'].split(/\s+/).filter(Boolean)
  if (values['handler-processes'] !== undefined) profile.handlerProcesses = parseHandlerProcesses(values['handler-processes'])
  // The handler processes and MariaDB ahead of the rest where the bench may set it (priority.js).
  const priority = values.priority !== undefined ? { priority: parsePriority(values.priority, '--priority'), from: 'option' } : defaultPriority(isRoot())
  profile.priority = priority.priority
  profile.priorityFrom = priority.from
  const dbName = values.db || (name === 'seeded' ? SEEDED_DB : BENCH_DB)
  const conflict = codeVariantConflict(profile, dbName, Boolean(values['keep-ledger']))
  if (conflict) throw new UsageError(conflict)
  return { name, profile, out: path.resolve(values.out), code: String(values.code), dbName, keepLedger: values['keep-ledger'] }
}

/** @param {() => never} help */
async function main (help) {
  const chosen = options()
  if (!chosen) return help()
  const { name, profile, out, code, dbName, keepLedger } = chosen
  const command = `node perf/src/bench/cli.js ${process.argv.slice(2).join(' ')}`.trim()
  const say = (/** @type {string} */ m) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${m}`)
  // However it ends (Ctrl-C, kill, a failure), the switch processes it started stop too.
  process.once('exit', stopChildren)
  for (const [signal, code] of /** @type {const} */ ([['SIGINT', 130], ['SIGTERM', 143]])) {
    process.once(signal, () => { say(`${signal}: stopping`); process.exit(code) })
  }
  const result = await runCampaign({ profileName: name, profile, command, code, dbName, keepLedger, say })
  const files = writeResults(result, out)
  const s = result.summary
  console.log(`\nprofile ${name}, ${result.durationS} s; results: ${files.json}\n  summary: ${files.md}`)
  for (const [label, c] of Object.entries(s.byConfig)) {
    const m = /** @type {any} */ (c)
    const f = (/** @type {any} */ x) => (x ? (x.n > 1 ? `${x.median} (${x.min}–${x.max})` : `${x.median}`) : 'n/a')
    console.log(`  ${label}: max sustainable ${f(m.maxSustainableRate)}/s at p99 ≤ ${profile.targets.p99TargetMs} ms (kept up with ${f(m.maxKeptUpRate)}/s), single p50 ${f(m.singleP50)} ms p99 ${f(m.singleP99)} ms, ` +
      `SQL ${f(m.atReferenceStep.sqlPerTransfer)}/transfer, commits ${f(m.atReferenceStep.commitsPerTransfer)}, CPU ${f(m.atReferenceStep.cpuMsPerTransferTotal)} ms/transfer`)
  }
  if (result.problems.length) {
    console.error(`\n${result.problems.length} problem(s) — the runs concerned are INVALID:\n  ${result.problems.join('\n  ')}`)
    process.exitCode = 1
  }
  // Keep-alive sockets and the Kafka client's timers would hold the process open.
  process.exit(process.exitCode || 0)
}

if (require.main === module) runCli(USAGE, main)

module.exports = { options }
