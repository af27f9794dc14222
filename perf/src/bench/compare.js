#!/usr/bin/env node
'use strict'

// npm run bench:compare -- <old.json> [new.json]
//
// Two result files: new ÷ old for every configuration both measured (max
// sustainable rate, single-transfer p50/p99, SQL, commits, Kafka messages
// and CPU per transfer). One file: the comparisons measured inside it
// (batched vs naive, tracing on vs off). Ratios across files compare
// different campaigns — possibly different machines or load: the files'
// machines are printed so that is visible.

const fs = require('node:fs')
const { overallPhrase } = require('./disk-watch')
const { parseCli, runCli, UsageError } = require('../cli-args')

const METRICS = [
  ['max sustainable rate /s', (/** @type {any} */ c) => c.maxSustainableRate, 'higher is better'],
  ['rate kept up with /s', (/** @type {any} */ c) => c.maxKeptUpRate, 'higher is better'],
  ['single p50 ms', (/** @type {any} */ c) => c.singleP50, 'lower is better'],
  ['single p99 ms', (/** @type {any} */ c) => c.singleP99, 'lower is better'],
  ['SQL / transfer', (/** @type {any} */ c) => c.atReferenceStep.sqlPerTransfer, 'lower is better'],
  ['SQL bytes / transfer', (/** @type {any} */ c) => c.atReferenceStep.sqlBytesPerTransfer, 'lower is better'],
  ['commits / transfer', (/** @type {any} */ c) => c.atReferenceStep.commitsPerTransfer, 'lower is better'],
  ['redo bytes / transfer', (/** @type {any} */ c) => c.atReferenceStep.redoBytesPerTransfer, 'lower is better'],
  ['Kafka msgs / transfer', (/** @type {any} */ c) => c.atReferenceStep.kafkaPerTransfer, 'lower is better'],
  ['Kafka requests / transfer', (/** @type {any} */ c) => c.atReferenceStep.kafkaRequestsPerTransfer, 'lower is better'],
  ['CPU ms / transfer', (/** @type {any} */ c) => c.atReferenceStep.cpuMsPerTransferTotal, 'lower is better']
]

/** @param {any} x */
const med = (x) => (x && typeof x.median === 'number' ? x.median : null)
/** @param {number | null} a @param {number | null} b */
const ratio = (a, b) => (a !== null && b !== null && a !== 0 ? Math.round((b / a) * 1000) / 1000 : null)

/**
 * new ÷ old per configuration and metric.
 * @param {any} oldResult @param {any} newResult
 */
function compareResults (oldResult, newResult) {
  const rows = []
  for (const [label, o] of Object.entries(oldResult.summary.byConfig)) {
    const n = newResult.summary.byConfig[label]
    if (!n) continue
    for (const [metric, get, better] of METRICS) {
      const a = med(/** @type {Function} */ (get)(o)); const b = med(/** @type {Function} */ (get)(n))
      rows.push({ config: label, metric: /** @type {string} */ (metric), old: a, new: b, ratio: ratio(a, b), better: /** @type {string} */ (better) })
    }
    const components = new Set([...Object.keys(/** @type {any} */ (o).atReferenceStep.cpuMsPerTransfer), ...Object.keys(n.atReferenceStep.cpuMsPerTransfer)])
    for (const c of components) {
      const a = med(/** @type {any} */ (o).atReferenceStep.cpuMsPerTransfer[c]); const b = med(n.atReferenceStep.cpuMsPerTransfer[c])
      rows.push({ config: label, metric: `  CPU ms / transfer: ${c}`, old: a, new: b, ratio: ratio(a, b), better: 'lower is better' })
    }
  }
  return rows
}

/** "400/s", or "400/s (kept up)" when no rate was sustained by both (summary.js atCommonRate). @param {any} common */
const atRate = (common) => (common ? `${common.rate}/s${common.basis === 'kept up' ? ' (kept up)' : ''}` : '?/s')

/** Comparisons inside one campaign, as rows. @param {any} result */
function withinResult (result) {
  const rows = []
  const c = result.summary.comparisons
  if (c.batchedVsNaive) {
    rows.push({ metric: 'max sustainable rate: batched ÷ naive', value: c.batchedVsNaive.maxRate })
    rows.push({ metric: 'rate kept up with: batched ÷ naive', value: c.batchedVsNaive.keptUpRate })
    rows.push({ metric: 'single p50: naive ÷ batched', value: c.batchedVsNaive.singleP50 })
    rows.push({ metric: 'SQL / transfer: naive ÷ batched (each at its max rate)', value: c.batchedVsNaive.sqlPerTransfer })
  }
  if (c.tracingCost) {
    rows.push({ metric: 'max sustainable rate: traced ÷ off', value: c.tracingCost.maxRate })
    rows.push({ metric: 'single p50: traced ÷ off', value: c.tracingCost.singleP50 })
    const t = c.tracingCost.atCommonRate
    rows.push({ metric: `CPU / transfer at ${atRate(t)}: traced ÷ off`, value: c.tracingCost.cpuPerTransfer })
    rows.push({ metric: `p50 at ${atRate(t)}: traced ÷ off`, value: t ? ratio(t.a.p50 ?? null, t.b.p50 ?? null) : null })
  }
  for (const [label, v] of Object.entries(c.variants || {})) {
    const x = /** @type {any} */ (v)
    rows.push({ metric: `max sustainable rate: ${label} ÷ ${x.base}`, value: x.maxRate })
    rows.push({ metric: `single p50: ${label} ÷ ${x.base}`, value: x.singleP50 })
    const at = atRate(x.atCommonRate)
    rows.push({ metric: `p99 at ${at}: ${label} ÷ ${x.base}`, value: x.atCommonRate ? ratio(x.atCommonRate.a.p99 ?? null, x.atCommonRate.b.p99 ?? null) : null })
    rows.push({ metric: `commits / transfer at ${at}: ${label} ÷ ${x.base}`, value: x.commitsPerTransfer })
    rows.push({ metric: `SQL bytes / transfer at ${at}: ${label} ÷ ${x.base}`, value: x.sqlBytesPerTransfer ?? null })
    rows.push({ metric: `redo bytes / transfer at ${at}: ${label} ÷ ${x.base}`, value: x.redoBytesPerTransfer ?? null })
    rows.push({ metric: `CPU / transfer at ${at}: ${label} ÷ ${x.base}`, value: x.cpuPerTransfer })
  }
  return rows
}

/** The disk watcher's campaign total (disk-watch.js), when the file has one. @param {any} r */
const diskStalls = (r) => {
  const phrase = r.diskWatch && overallPhrase(r.diskWatch)
  return phrase ? `, ${phrase}` : ''
}

/** @param {any} r */
const machine = (r) => `${r.startedAt} ${r.profile}: ${r.machine.nproc} cores ${r.machine.cpuModel}, commit ${String(r.machine.git.commit).slice(0, 10)}, ledger ≈ ${(r.ledgerBefore && r.ledgerBefore.transfer) || 0} transfers, ` +
  `max rates at p99 ≤ ${r.settings.targets.p99TargetMs} ms${diskStalls(r)}`

const USAGE = 'npm run bench:compare -- <old.json> [new.json] (one result: its variants against their bases)'

/**
 * A result file, or a usage error that names the file and what is wrong with it.
 * @param {string} file
 */
function readResult (file) {
  let text
  try { text = fs.readFileSync(file, 'utf8') } catch (err) { throw new UsageError(`cannot read ${file}: ${/** @type {Error} */ (err).message}`) }
  try { return JSON.parse(text) } catch (err) { throw new UsageError(`${file} is not a bench result (JSON): ${/** @type {Error} */ (err).message}`) }
}

/** @param {() => never} help */
async function main (help) {
  const { positionals, help: wantsHelp } = parseCli({ options: {}, allowPositionals: true })
  if (wantsHelp) help()
  const [oldFile, newFile] = positionals
  if (!oldFile || positionals.length > 2) throw new UsageError('give one or two result files')
  const a = readResult(oldFile)
  if (!newFile) {
    console.log(machine(a))
    for (const r of withinResult(a)) console.log(`  ${r.metric.padEnd(46)} ${r.value === null ? 'n/a' : `×${r.value}`}`)
    return
  }
  const b = readResult(newFile)
  console.log(`old: ${machine(a)}\nnew: ${machine(b)}\n`)
  console.log(`${'config'.padEnd(9)} ${'metric'.padEnd(30)} ${'old'.padStart(10)} ${'new'.padStart(10)}  new ÷ old`)
  for (const r of compareResults(a, b)) {
    console.log(`${r.config.padEnd(9)} ${r.metric.padEnd(30)} ${String(r.old ?? 'n/a').padStart(10)} ${String(r.new ?? 'n/a').padStart(10)}  ${r.ratio === null ? 'n/a' : `×${r.ratio}`} (${r.better})`)
  }
}

if (require.main === module) runCli(USAGE, main)

module.exports = { compareResults, withinResult, machine }
