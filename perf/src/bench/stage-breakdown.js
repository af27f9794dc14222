'use strict'

// Where a step's time went inside the switch, per stage, from the handlers'
// own Prometheus metrics (docs/metrics.md) read before and after the step:
// records per transaction, and the mean queue gap, transaction and produce
// time. The gap report gives the same per transfer from traces; this costs
// nothing and runs on every step, traced or not.

const { parseExposition } = require('../../../shared/src/metrics/exposition')
const { round } = require('./schedule')

/** Histogram families of shared/src/metrics/stage-metrics.js, labelled by stage. */
const METRICS = {
  switchyard_stage_processing_seconds: 'processing',
  switchyard_stage_db_seconds: 'db',
  switchyard_stage_produce_seconds: 'produce',
  switchyard_queue_gap_seconds: 'queueGap',
  switchyard_batch_size: 'chunk',
  switchyard_transaction_records: 'transaction'
}

/** The handler process's shared transactions (shared/src/metrics/shared-transactions.js), unlabelled. */
const SHARED_METRICS = {
  switchyard_shared_transaction_seconds: 'seconds',
  switchyard_shared_transaction_chunks: 'chunks'
}

/** The gauge of the window the latest lingering shared transaction had (DB_SHARED_LINGER_MS, DB_SHARED_LINGER_SHARE). */
const WINDOW_METRIC = 'switchyard_shared_transaction_window_seconds'

/** Shared transactions rolled back (a chunk failed, or two wrote the same row): each of their chunks ran again alone. */
const ROLLBACKS_METRIC = 'switchyard_shared_transaction_rollbacks_total'

/** prom-client's default GC histogram, with the registry's prefix (shared/src/metrics/index.js), labelled by kind. */
const GC_METRIC = 'switchyard_nodejs_gc_duration_seconds'

/** @typedef {ReturnType<typeof parseExposition>} Exposition */

/** A histogram sample's family and part: `x_sum` → ['x', 'sum']. @param {string} name */
function sumOrCount (name) {
  const m = /^(.+)_(sum|count)$/.exec(name)
  return m ? { family: m[1], part: /** @type {'sum' | 'count'} */ (m[2]) } : undefined
}

/** @param {string} text */
const parse = (text) => parseExposition(text, { requireType: false })

/** @param {Exposition} parsed */
function stagesOf (parsed) {
  /** @type {Record<string, Record<string, { sum: number, count: number }>>} */
  const out = {}
  for (const { name, labels, value } of parsed.samples) {
    const s = sumOrCount(name)
    if (!s || !METRICS[s.family] || labels.stage === undefined) continue
    const byMetric = (out[labels.stage] ||= {})
    const entry = (byMetric[METRICS[s.family]] ||= { sum: 0, count: 0 })
    entry[s.part] = value
  }
  return out
}

/**
 * Sum and count of the histograms that `keyOf` names (by family and labels;
 * undefined leaves a sample out), under that name.
 * @param {Exposition} parsed
 * @param {(family: string, labels: Record<string, string>) => string | undefined} keyOf
 */
function sumsBy (parsed, keyOf) {
  /** @type {Record<string, { sum: number, count: number }>} */
  const out = {}
  for (const { name, labels, value } of parsed.samples) {
    const s = sumOrCount(name)
    const key = s && keyOf(s.family, labels)
    if (!s || key === undefined) continue
    const entry = (out[key] ||= { sum: 0, count: 0 })
    entry[s.part] = value
  }
  return out
}

/** @param {Exposition} parsed */
const gcOf = (parsed) => sumsBy(parsed, (family, labels) => (family === GC_METRIC ? labels.kind : undefined))

/** @param {Exposition} parsed */
const sharedOf = (parsed) => sumsBy(parsed, (family) => SHARED_METRICS[family])

/** The latest lingering window in ms, if one has been set (the gauge reads 0 until then). @param {Exposition} parsed @returns {number | undefined} */
const windowOf = (parsed) => {
  const sample = parsed.samples.find((x) => x.name === WINDOW_METRIC)
  return sample && sample.value > 0 ? sample.value * 1000 : undefined
}

/** The shared transactions rolled back so far, if the process has the counter. @param {Exposition} parsed @returns {number | undefined} */
const rollbacksOf = (parsed) => parsed.samples.find((x) => x.name === ROLLBACKS_METRIC)?.value

/**
 * What a sum and count grew by between two scrapes (absent counts as zero).
 * @param {{ sum: number, count: number } | undefined} after @param {{ sum: number, count: number } | undefined} before
 */
const grown = (after, before) => ({ sum: (after?.sum || 0) - (before?.sum || 0), count: (after?.count || 0) - (before?.count || 0) })

/**
 * `{ stage: { processing: { sum, count }, … } }` from an exposition text.
 * @param {string} text
 * @returns {Record<string, Record<string, { sum: number, count: number }>>}
 */
const parseStages = (text) => stagesOf(parse(text))

/**
 * Garbage collection of the handler process: seconds and count per kind.
 * @param {string} text
 * @returns {Record<string, { sum: number, count: number }>}
 */
const parseGc = (text) => gcOf(parse(text))

/**
 * The shared transactions' time open and chunks: `{ seconds: { sum, count }, chunks: { sum, count } }`.
 * @param {string} text
 */
const parseShared = (text) => sharedOf(parse(text))

/** @typedef {{ stages: ReturnType<typeof parseStages>, gc: ReturnType<typeof parseGc>, shared: ReturnType<typeof sharedOf>, windowMs?: number, rollbacks?: number, at: number }} Scrape */

/**
 * The handler processes' metrics as one: each stage runs in one of them, and
 * their garbage collections and shared transactions add up.
 * @param {Scrape[]} scrapes @returns {Scrape}
 */
function mergeScrapes (scrapes) {
  /** @type {Scrape} */
  const out = { stages: {}, gc: {}, shared: {}, at: Math.max(0, ...scrapes.map((x) => x.at)) }
  const windows = scrapes.map((x) => x.windowMs).filter((x) => x !== undefined)
  if (windows.length) out.windowMs = Math.max(...windows)
  const rollbacks = scrapes.map((x) => x.rollbacks).filter((x) => x !== undefined)
  if (rollbacks.length) out.rollbacks = rollbacks.reduce((a, b) => a + b, 0)
  for (const { stages, gc, shared } of scrapes) {
    for (const [stage, metrics] of Object.entries(stages)) {
      const into = (out.stages[stage] ||= {})
      for (const [k, x] of Object.entries(metrics)) {
        const e = (into[k] ||= { sum: 0, count: 0 })
        e.sum += x.sum
        e.count += x.count
      }
    }
    for (const [into, from] of [[out.gc, gc], [out.shared, shared || {}]]) {
      for (const [kind, x] of Object.entries(from)) {
        const e = (into[kind] ||= { sum: 0, count: 0 })
        e.sum += x.sum
        e.count += x.count
      }
    }
  }
  return out
}

/**
 * The handler processes' metrics texts as one scrape.
 * @param {string[]} texts every handler process's /metrics text
 * @returns {Scrape}
 */
const stagesOfTexts = (texts) => mergeScrapes(texts.map((text) => {
  const parsed = parse(text)
  return { stages: stagesOf(parsed), gc: gcOf(parsed), shared: sharedOf(parsed), windowMs: windowOf(parsed), rollbacks: rollbacksOf(parsed), at: Date.now() }
}))

/**
 * Per stage, what happened between two scrapes: transactions, records per
 * transaction, and mean milliseconds of queue gap (per record), transaction
 * and produce (per chunk); and the handler processes' garbage collection.
 * @param {Scrape | null} before
 * @param {Scrape | null} after
 */
function stageDelta (before, after) {
  if (!before || !after) return null
  /** @type {Record<string, { transactions: number, recordsPerTransaction: number, queueGapMs: number, dbMs: number, produceMs: number }>} */
  const out = {}
  for (const [stage, m] of Object.entries(after.stages)) {
    const b = before.stages[stage] || {}
    const d = (/** @type {string} */ k) => grown(m[k], b[k])
    const mean = (/** @type {string} */ k, scale = 1) => { const x = d(k); return x.count > 0 ? round(x.sum / x.count * scale) : 0 }
    const tx = d('transaction')
    if (!tx.count && !d('chunk').count) continue
    out[stage] = {
      transactions: tx.count,
      recordsPerTransaction: tx.count ? round(tx.sum / tx.count, 1) : 0,
      queueGapMs: mean('queueGap', 1000),
      dbMs: mean('db', 1000),
      produceMs: mean('produce', 1000)
    }
  }
  /** @type {Record<string, { count: number, ms: number, meanMs: number }>} */
  const gcs = {}
  for (const [kind, x] of Object.entries(after.gc)) {
    const { sum, count } = grown(x, before.gc[kind])
    const ms = sum * 1000
    if (count > 0) gcs[kind] = { count, ms: round(ms), meanMs: round(ms / count) }
  }
  return { byStage: out, handlersGc: gcs, sharedTransactions: sharedDelta(before, after) }
}

/**
 * The shared transactions between two scrapes: how many, chunks per one, mean
 * time open, and the share of the time one was open (summed over the handler
 * processes, so up to their number × DB_SHARED_TRANSACTIONS), how many were
 * rolled back (their chunks then ran again, each alone: work done twice), and
 * the latest lingering window when one was set. Null when none ran.
 * @param {Scrape} before @param {Scrape} after
 */
function sharedDelta (before, after) {
  const seconds = grown(after.shared?.seconds, before.shared?.seconds)
  const chunks = grown(after.shared?.chunks, before.shared?.chunks)
  const elapsedS = (after.at - before.at) / 1000
  if (!seconds.count) return null
  return {
    transactions: seconds.count,
    chunksPerTransaction: round(chunks.sum / chunks.count, 1),
    meanMs: round(seconds.sum / seconds.count * 1000),
    busyShare: elapsedS > 0 ? round(seconds.sum / elapsedS) : null,
    ...(after.rollbacks !== undefined ? { rolledBack: after.rollbacks - (before.rollbacks || 0) } : {}),
    ...(after.windowMs !== undefined ? { windowMs: round(after.windowMs, 1) } : {})
  }
}

/** One line per step for the console. @param {ReturnType<typeof stageDelta>} stages */
function stagesLine (stages) {
  if (!stages) return ''
  const { byStage, handlersGc, sharedTransactions: sh } = stages
  const gcText = Object.entries(handlersGc || {}).map(([k, x]) => `${k} ${x.count}×${x.meanMs}`).join(', ')
  return Object.entries(byStage).map(([s, x]) => `${s} ${x.recordsPerTransaction}/tx gap ${x.queueGapMs} db ${x.dbMs} produce ${x.produceMs}`).join('; ') +
    (sh ? `; shared transactions ${sh.transactions}, ${sh.chunksPerTransaction} chunks/tx, ${sh.meanMs} ms open, busy ${sh.busyShare}${sh.rolledBack ? `, ${sh.rolledBack} rolled back` : ''}${sh.windowMs !== undefined ? `, window ${sh.windowMs} ms` : ''}` : '') +
    (gcText ? `; handlers GC (count×mean ms) ${gcText}` : '')
}

module.exports = { parseStages, parseGc, parseShared, stagesOfTexts, stageDelta, stagesLine }
