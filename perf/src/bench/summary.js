'use strict'

// Campaign summary, pure: per configuration the median (min–max) over its
// repetitions of the maximum sustainable rate, single-transfer latency and
// work per transfer; and the ratios between configurations, each measured at
// a rate both sustained where that matters.

const { round: r, sustainedSteps, keptUp } = require('./schedule')

/** @param {number[]} xs */
function spread (xs) {
  const v = xs.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b)
  if (!v.length) return null
  const mid = v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2
  return { median: r(mid), min: r(v[0]), max: r(v[v.length - 1]), n: v.length }
}

/** The step whose work is reported for a run: its max sustainable rate's step, else its first. @param {any} run */
function referenceStep (run) {
  const sustained = sustainedSteps(run.steps)
  return sustained.length ? sustained[sustained.length - 1] : run.steps[0]
}

/** @param {any} step */
function work (step) {
  if (!step) return null
  const cpu = Object.fromEntries(Object.entries(step.cpu.processes).map(([k, v]) => [k, /** @type {any} */ (v).msPerTransfer]))
  return {
    offeredRate: step.offeredRate,
    sqlPerTransfer: step.sql.statementsPerTransfer,
    commitsPerTransfer: step.sql.commitsPerTransfer,
    pageReadsPerTransfer: step.sql.pageReadsPerTransfer ?? null,
    pagesWrittenPerTransfer: step.sql.pagesWrittenPerTransfer ?? null,
    sqlBytesPerTransfer: step.sql.sqlBytesPerTransfer ?? null,
    redoBytesPerTransfer: step.sql.redoBytesPerTransfer ?? null,
    kafkaPerTransfer: step.kafka.perTransfer,
    kafkaRequestsPerTransfer: step.kafka.requests ? step.kafka.requests.perTransfer : null,
    cpuMsPerTransfer: cpu,
    cpuMsPerTransferTotal: step.cpu.ourMsPerTransfer
  }
}

/**
 * A run's single-transfer measurement, if it counts: every transfer
 * committed and its gates passed. A failed transfer has no latency, so
 * percentiles over the others would look better than the run was.
 * @param {any} run
 */
const countedSingle = (run) => (run.single && run.single.valid && !run.single.failed ? run.single : null)

/** @param {any[]} runs all runs of one configuration */
function summarizeConfig (runs) {
  const refs = runs.map(referenceStep).map(work).filter(Boolean)
  const components = [...new Set(refs.flatMap((w) => Object.keys(w.cpuMsPerTransfer)))]
  return {
    runs: runs.length,
    invalidSteps: runs.reduce((n, run) => n + run.steps.filter((/** @type {any} */ s) => !s.valid).length + (run.single && !run.single.valid ? 1 : 0), 0),
    failedRuns: runs.filter((run) => run.errors.length).length,
    maxSustainableRate: spread(runs.map((run) => run.maxSustainableRate)),
    maxKeptUpRate: spread(runs.map((run) => run.maxKeptUpRate)),
    idlePctCore: Object.fromEntries(['api', 'handlers', 'kafka', 'mariadb'].map((c) => [c, spread(runs.map((run) => run.idle && run.idle.processes[c] ? run.idle.processes[c].pctCore : null))])),
    singleP50: spread(runs.map((run) => countedSingle(run)?.latency.p50)),
    singleP99: spread(runs.map((run) => countedSingle(run)?.latency.p99)),
    singlesLeftOut: runs.filter((run) => run.single && !countedSingle(run)).length,
    atReferenceStep: {
      offeredRate: spread(refs.map((w) => w.offeredRate)),
      sqlPerTransfer: spread(refs.map((w) => w.sqlPerTransfer)),
      commitsPerTransfer: spread(refs.map((w) => w.commitsPerTransfer)),
      pageReadsPerTransfer: spread(refs.map((w) => w.pageReadsPerTransfer)),
      pagesWrittenPerTransfer: spread(refs.map((w) => w.pagesWrittenPerTransfer)),
      sqlBytesPerTransfer: spread(refs.map((w) => w.sqlBytesPerTransfer)),
      redoBytesPerTransfer: spread(refs.map((w) => w.redoBytesPerTransfer)),
      kafkaPerTransfer: spread(refs.map((w) => w.kafkaPerTransfer)),
      kafkaRequestsPerTransfer: spread(refs.map((w) => w.kafkaRequestsPerTransfer)),
      cpuMsPerTransferTotal: spread(refs.map((w) => w.cpuMsPerTransferTotal)),
      cpuMsPerTransfer: Object.fromEntries(components.map((c) => [c, spread(refs.map((w) => w.cpuMsPerTransfer[c]))]))
    }
  }
}

/**
 * The highest offered rate that every run of both configurations sustained,
 * and the medians there: compares like with like. Where no rate was
 * sustained by all of them (a machine where every step misses the p99 bound,
 * on its disk or its CPU), the highest rate every run of both kept up with
 * (success, no backlog growth, whatever the latency): work per transfer and
 * latency still compare there. `basis` says which.
 * @param {any[]} a @param {any[]} b
 * @returns {{ rate: number, basis: 'sustained' | 'kept up', a: any, b: any } | null}
 */
function atCommonRate (a, b) {
  const runs = [...a, ...b]
  if (!runs.length) return null
  /** @param {(run: any) => number[]} ratesOf */
  const highestCommon = (ratesOf) => {
    const sets = runs.map((run) => new Set(ratesOf(run)))
    const common = [...sets[0]].filter((rate) => sets.every((x) => x.has(rate)))
    return common.length ? Math.max(...common) : null
  }
  const sustained = highestCommon((run) => sustainedSteps(run.steps).map((/** @type {any} */ s) => s.offeredRate))
  const rate = sustained ?? highestCommon((run) => run.steps.filter((/** @type {any} */ s) => keptUp(s)).map((/** @type {any} */ s) => s.offeredRate))
  if (rate === null) return null
  const at = (/** @type {any[]} */ rs) => rs.map((run) => run.steps.find((/** @type {any} */ s) => s.offeredRate === rate))
  const med = (/** @type {any[]} */ steps, /** @type {(s: any) => number} */ f) => { const x = spread(steps.map(f)); return x && x.median }
  const side = (/** @type {any[]} */ steps) => ({
    p50: med(steps, (s) => s.latency.p50),
    p99: med(steps, (s) => s.latency.p99),
    cpuMsPerTransfer: med(steps, (s) => s.cpu.ourMsPerTransfer),
    sqlPerTransfer: med(steps, (s) => s.sql.statementsPerTransfer),
    commitsPerTransfer: med(steps, (s) => s.sql.commitsPerTransfer),
    sqlBytesPerTransfer: med(steps, (s) => s.sql.sqlBytesPerTransfer),
    redoBytesPerTransfer: med(steps, (s) => s.sql.redoBytesPerTransfer)
  })
  return { rate, basis: sustained !== null ? 'sustained' : 'kept up', a: side(at(a)), b: side(at(b)) }
}

/** @param {number | null | undefined} x @param {number | null | undefined} y */
const ratio = (x, y) => (typeof x === 'number' && typeof y === 'number' && y !== 0 ? r(x / y, 3) : null)

/**
 * @param {any[]} runs every run of the campaign, each with a `label`
 * @param {Record<string, { base?: string }>} [configs] the campaign's configurations by label;
 *   a variant (`--variant`, with a `base`) is compared with its base
 */
function summarizeCampaign (runs, configs = {}) {
  const labels = [...new Set(runs.map((run) => run.label))]
  const byConfig = Object.fromEntries(labels.map((l) => [l, summarizeConfig(runs.filter((run) => run.label === l))]))
  const of = (/** @type {string} */ l) => runs.filter((run) => run.label === l)
  const comparisons = {}
  const base = byConfig.batched
  if (base && byConfig.naive) {
    const n = byConfig.naive
    comparisons.batchedVsNaive = {
      maxRate: ratio(base.maxSustainableRate && base.maxSustainableRate.median, n.maxSustainableRate && n.maxSustainableRate.median),
      keptUpRate: ratio(base.maxKeptUpRate && base.maxKeptUpRate.median, n.maxKeptUpRate && n.maxKeptUpRate.median),
      singleP50: ratio(n.singleP50 && n.singleP50.median, base.singleP50 && base.singleP50.median),
      sqlPerTransfer: ratio(n.atReferenceStep.sqlPerTransfer && n.atReferenceStep.sqlPerTransfer.median, base.atReferenceStep.sqlPerTransfer && base.atReferenceStep.sqlPerTransfer.median),
      atCommonRate: atCommonRate(of('batched'), of('naive')),
      reads: 'maxRate, keptUpRate: batched ÷ naive; singleP50 and sqlPerTransfer: naive ÷ batched (how many times more)'
    }
  }
  if (base && byConfig.traced) {
    const t = byConfig.traced
    const common = atCommonRate(of('batched'), of('traced'))
    comparisons.tracingCost = {
      maxRate: ratio(t.maxSustainableRate && t.maxSustainableRate.median, base.maxSustainableRate && base.maxSustainableRate.median),
      singleP50: ratio(t.singleP50 && t.singleP50.median, base.singleP50 && base.singleP50.median),
      atCommonRate: common,
      cpuPerTransfer: common ? ratio(common.b.cpuMsPerTransfer, common.a.cpuMsPerTransfer) : null,
      reads: 'traced ÷ off; atCommonRate a = off, b = traced'
    }
  }
  for (const [label, config] of Object.entries(configs)) {
    const base = config && config.base
    if (!base || !byConfig[label] || !byConfig[base]) continue
    const v = byConfig[label]
    const b = byConfig[base]
    const common = atCommonRate(of(base), of(label))
    const variants = comparisons.variants || (comparisons.variants = {})
    variants[label] = {
      base,
      maxRate: ratio(v.maxSustainableRate && v.maxSustainableRate.median, b.maxSustainableRate && b.maxSustainableRate.median),
      keptUpRate: ratio(v.maxKeptUpRate && v.maxKeptUpRate.median, b.maxKeptUpRate && b.maxKeptUpRate.median),
      singleP50: ratio(v.singleP50 && v.singleP50.median, b.singleP50 && b.singleP50.median),
      atCommonRate: common,
      cpuPerTransfer: common ? ratio(common.b.cpuMsPerTransfer, common.a.cpuMsPerTransfer) : null,
      commitsPerTransfer: common ? ratio(common.b.commitsPerTransfer, common.a.commitsPerTransfer) : null,
      sqlBytesPerTransfer: common ? ratio(common.b.sqlBytesPerTransfer, common.a.sqlBytesPerTransfer) : null,
      redoBytesPerTransfer: common ? ratio(common.b.redoBytesPerTransfer, common.a.redoBytesPerTransfer) : null,
      reads: `${label} ÷ ${base}; atCommonRate a = ${base}, b = ${label}`
    }
  }
  return { byConfig, comparisons }
}

module.exports = { summarizeCampaign, spread, atCommonRate, ratio }
