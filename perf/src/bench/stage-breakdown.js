'use strict'

// Where a step's time went inside the switch, per stage, from the handlers'
// own Prometheus metrics (docs/metrics.md) read before and after the step:
// records per transaction, and the mean queue gap, transaction and produce
// time. The gap report gives the same per transfer from traces; this costs
// nothing and runs on every step, traced or not.

const METRICS = {
  switchyard_stage_processing_seconds: 'processing',
  switchyard_stage_db_seconds: 'db',
  switchyard_stage_produce_seconds: 'produce',
  switchyard_queue_gap_seconds: 'queueGap',
  switchyard_batch_size: 'chunk',
  switchyard_transaction_records: 'transaction'
}

const LINE = /^(switchyard_[a-z_]+)_(sum|count)\{([^}]*)\} (\S+)$/

/**
 * `{ stage: { processing: { sum, count }, … } }` from an exposition text.
 * @param {string} text
 * @returns {Record<string, Record<string, { sum: number, count: number }>>}
 */
function parseStages (text) {
  /** @type {Record<string, Record<string, { sum: number, count: number }>>} */
  const out = {}
  for (const line of text.split('\n')) {
    const m = LINE.exec(line)
    if (!m || !METRICS[m[1]]) continue
    const stage = /stage="([^"]*)"/.exec(m[3])
    if (!stage) continue
    const byMetric = (out[stage[1]] ||= {})
    const entry = (byMetric[METRICS[m[1]]] ||= { sum: 0, count: 0 })
    entry[/** @type {'sum' | 'count'} */ (m[2])] = Number(m[4])
  }
  return out
}

const GC = /^switchyard_nodejs_gc_duration_seconds_(sum|count)\{kind="([a-z]+)"\} (\S+)$/

/**
 * Garbage collection of the handler process: seconds and count per kind.
 * @param {string} text
 */
function parseGc (text) {
  /** @type {Record<string, { sum: number, count: number }>} */
  const out = {}
  for (const line of text.split('\n')) {
    const m = GC.exec(line)
    if (!m) continue
    const entry = (out[m[2]] ||= { sum: 0, count: 0 })
    entry[/** @type {'sum' | 'count'} */ (m[1])] = Number(m[3])
  }
  return out
}

/** @typedef {{ stages: ReturnType<typeof parseStages>, gc: ReturnType<typeof parseGc> }} Scrape */

/** @param {string} url @returns {Promise<Scrape | null>} */
async function scrapeStages (url) {
  try {
    const res = await fetch(url)
    if (!res.ok) return null
    const text = await res.text()
    return { stages: parseStages(text), gc: parseGc(text) }
  } catch {
    return null
  }
}

const round = (/** @type {number} */ x, digits = 2) => Number(x.toFixed(digits))

/**
 * Per stage, what happened between two scrapes: transactions, records per
 * transaction, and mean milliseconds of queue gap (per record), transaction
 * and produce (per chunk).
 * and the handler process's garbage collection.
 * @param {Scrape | null} before
 * @param {Scrape | null} after
 */
function stageDelta (before, after) {
  if (!before || !after) return null
  /** @type {Record<string, { transactions: number, recordsPerTransaction: number, queueGapMs: number, dbMs: number, produceMs: number }>} */
  const out = {}
  for (const [stage, m] of Object.entries(after.stages)) {
    const b = before.stages[stage] || {}
    const d = (/** @type {string} */ k) => ({ sum: (m[k]?.sum || 0) - (b[k]?.sum || 0), count: (m[k]?.count || 0) - (b[k]?.count || 0) })
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
  const gcA = before.gc
  const gcB = after.gc
  /** @type {Record<string, { count: number, ms: number, meanMs: number }>} */
  const gcs = {}
  for (const [kind, x] of Object.entries(gcB)) {
    const count = x.count - (gcA[kind]?.count || 0)
    const ms = (x.sum - (gcA[kind]?.sum || 0)) * 1000
    if (count > 0) gcs[kind] = { count, ms: round(ms), meanMs: round(ms / count) }
  }
  return { byStage: out, handlersGc: gcs }
}

/** One line per step for the console. @param {ReturnType<typeof stageDelta>} stages */
function stagesLine (stages) {
  if (!stages) return ''
  const { byStage, handlersGc } = stages
  const gcText = Object.entries(handlersGc || {}).map(([k, x]) => `${k} ${x.count}×${x.meanMs}`).join(', ')
  return Object.entries(byStage).map(([s, x]) => `${s} ${x.recordsPerTransaction}/tx gap ${x.queueGapMs} db ${x.dbMs} produce ${x.produceMs}`).join('; ') +
    (gcText ? `; handlers GC (count×mean ms) ${gcText}` : '')
}

module.exports = { parseStages, parseGc, scrapeStages, stageDelta, stagesLine }
