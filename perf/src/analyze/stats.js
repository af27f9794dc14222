'use strict'

// Distributions over a whole run: per transfer, per stage, and the largest
// gaps. Percentiles are exact (nearest rank over the sorted samples), which
// is what an HDR histogram reports, without its bucket rounding.

/** @typedef {import('./types').Transfer} Transfer */
/** @typedef {{ count: number, p50: number | null, p95: number | null, p99: number | null, max: number | null, mean: number | null }} Distribution */

/**
 * The smallest sample such that at least p% of the samples are ≤ it.
 * @param {number[]} sorted ascending
 * @param {number} p 0 < p ≤ 100
 */
function percentile (sorted, p) {
  if (!sorted.length) return null
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]
}

/** @param {number[]} values @returns {Distribution} */
function distribution (values) {
  const sorted = values.filter((v) => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b)
  const n = sorted.length
  return {
    count: n,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: n ? sorted[n - 1] : null,
    mean: n ? sorted.reduce((a, b) => a + b, 0) / n : null
  }
}

const median = (values) => percentile([...values].sort((a, b) => a - b), 50)

/** @param {Transfer[]} transfers */
function summarize (transfers) {
  const sum = (f) => transfers.reduce((n, t) => n + f(t), 0)
  const total = sum((t) => t.totalMs)
  return {
    transfers: transfers.length,
    tree: transfers.filter((t) => t.link === 'tree').length,
    joined: transfers.filter((t) => t.link === 'joined').length,
    events: distribution(transfers.map((t) => t.events.length)),
    work: distribution(transfers.map((t) => t.workMs)),
    total: distribution(transfers.map((t) => t.totalMs)),
    workShare: total > 0 ? sum((t) => t.workMs) / total : null,
    sqlStatements: distribution(transfers.map((t) => t.sqlStatements)),
    sqlMs: distribution(transfers.map((t) => t.sqlMs))
  }
}

/**
 * One row per event label, in pipeline order (by the median position at
 * which the label first occurs in a transfer). SQL per transfer divides by every transfer of the run,
 * so the column sums to the run's SQL per transfer.
 * @param {Transfer[]} transfers
 */
function perStage (transfers) {
  /** @type {Map<string, import('./types').TransferEvent[]>} */
  const byLabel = new Map()
  /** @type {Map<string, Map<string, number>>} per label, per transfer, the label's first position */
  const firstIndex = new Map()
  for (const t of transfers) {
    t.events.forEach((e, i) => {
      if (!byLabel.has(e.label)) { byLabel.set(e.label, []); firstIndex.set(e.label, new Map()) }
      byLabel.get(e.label).push(e)
      if (!firstIndex.get(e.label).has(t.id)) firstIndex.get(e.label).set(t.id, i)
    })
  }
  const n = transfers.length || 1
  const rows = [...byLabel].map(([label, events]) => {
    const batched = events.filter((e) => e.batchSize !== null)
    return {
      label,
      stage: events[0].stage,
      kind: events[0].kind,
      events: events.length,
      queue: distribution(events.filter((e) => e.queueGapMs !== null).map((e) => e.queueGapMs)),
      work: distribution(events.map((e) => e.durationMs)),
      gap: distribution(events.map((e) => e.gapBeforeMs)),
      sqlPerTransfer: events.reduce((s, e) => s + e.sqlStatements, 0) / n,
      sqlMsPerTransfer: events.reduce((s, e) => s + e.sqlMs, 0) / n,
      sqlPerEvent: events.reduce((s, e) => s + e.sqlStatements, 0) / events.length,
      meanBatchSize: batched.length ? batched.reduce((s, e) => s + e.batchSize, 0) / batched.length : null,
      errors: events.filter((e) => e.error).length,
      order: median([...firstIndex.get(label).values()])
    }
  })
  return rows.sort((a, b) => a.order - b.order || (a.label < b.label ? -1 : 1))
}

/**
 * The N largest gaps of the run, each with its transfer and the two events
 * it lies between.
 * @param {Transfer[]} transfers @param {number} n
 */
function largestGaps (transfers, n) {
  const gaps = []
  for (const t of transfers) {
    for (const e of t.events) {
      if (e.gapBeforeMs > 0) gaps.push({ transferId: t.id, gapMs: e.gapBeforeMs, from: e.gapFrom, to: e.label, offsetMs: e.offsetMs - e.gapBeforeMs })
    }
  }
  gaps.sort((a, b) => b.gapMs - a.gapMs || (a.transferId < b.transferId ? -1 : a.transferId > b.transferId ? 1 : 0) || a.offsetMs - b.offsetMs)
  return gaps.slice(0, n)
}

/** The N transfers with the longest total time, slowest first. @param {Transfer[]} transfers @param {number} n */
function slowest (transfers, n) {
  return [...transfers].sort((a, b) => b.totalMs - a.totalMs || a.firstStart - b.firstStart).slice(0, n)
}

/** @param {Transfer[]} transfers @param {{ top: number }} opts */
function toStats (transfers, { top }) {
  return { summary: summarize(transfers), stages: perStage(transfers), largestGaps: largestGaps(transfers, top), slowest: slowest(transfers, top) }
}

module.exports = { percentile, distribution, largestGaps, slowest, toStats }
