'use strict'

// When to fetch again. A consumer that fetches the moment its transaction is
// done applies whatever arrived meanwhile, which under a steady moderate load
// is one or two records: every transaction then costs a fetch, two database
// round trips and a produce for almost nothing (docs/performance.md: ~1.4 ms
// of CPU per cycle across the processes on a 2-core machine). The pacer
// watches the arrival rate and, when `lingerMs` worth of arrivals is at least
// `worthIt` records but the last transaction was small (under `target`
// records), lets the next batch gather — up to `lingerMs` after the last
// transaction started, or less if `target` records will have arrived sooner.
// Each transaction then carries more records, and the machine spends its CPU
// on records instead of cycles. When records are sparse (a single transfer
// crossing the pipeline) or batches are already large (high load), it never
// waits, up to a window of about 10 ms: a lone transfer's notifications (one
// record, then two a few milliseconds later) come to four over a 16 ms one
// (docs/performance.md, thirty-seventh round). Kafka producers call this
// linger; here it is applied where the consumer's batch is formed.

/**
 * @param {{ lingerMs: number, worthIt?: number, target?: number, now?: () => number }} opts lingerMs 0 turns it off
 */
function createPacer ({ lingerMs, worthIt = 4, target = 8, now = Date.now }) {
  /** Records per millisecond, smoothed over recent transactions. */
  let rate = 0
  let lastStart = 0
  let lastRecords = 0
  return {
    /**
     * A transaction with `records` records started at `startedAt`.
     * @param {number} records @param {number} startedAt
     */
    observe (records, startedAt) {
      if (lastStart) {
        const observed = records / Math.max(1, startedAt - lastStart)
        rate = rate ? 0.7 * rate + 0.3 * observed : observed
      }
      lastStart = startedAt
      lastRecords = records
    },
    /** How long to wait before the next fetch. */
    lingerMs () {
      if (!lingerMs || rate * lingerMs < worthIt || lastRecords >= target) return 0
      return Math.max(0, Math.min(lingerMs, target / rate) - (now() - lastStart))
    },
    get rate () { return rate }
  }
}

module.exports = { createPacer }
