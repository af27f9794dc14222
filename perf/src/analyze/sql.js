'use strict'

// Who ran which SQL. A handler runs one DB transaction per batch of messages
// (its SQL spans are children of the batch span), so each message of the
// batch is charged statements ÷ batch size — fractions are expected. Chunks
// applied in one transaction (several partitions' chunks of a consumer, or
// several consumers' in a shared transaction) run most of its SQL under the
// first chunk's batch span, and some under their own (a chunk's own reads);
// the others name the first (`switchyard.transaction.span_id`), and every
// message of them all is charged the transaction's statements ÷ their
// records. SQL run under an event's own span (an API request) is charged to
// that event whole.

const { attr, isBatch, isSql, isEvent } = require('./span-kinds')
const { TRANSACTION_OWNER } = require('../../../shared/src/tracing/stage-spans')

/** @typedef {import('./types').Span} Span */

const MAX_DEPTH = 64

/**
 * @param {Span[]} spans
 * @param {ReturnType<typeof import('./load').indexSpans>} index
 */
function createSqlAttribution (spans, index) {
  /** @type {Map<Span, { count: number, ms: number }>} */
  const owned = new Map()
  const totals = { statements: 0, inBatches: 0, inEvents: 0, elsewhere: 0 }
  const add = (owner, s) => {
    const o = owned.get(owner) || { count: 0, ms: 0 }
    o.count++
    o.ms += s.durationMs
    owned.set(owner, o)
  }
  for (const s of spans) {
    if (!isSql(s)) continue
    totals.statements++
    let p = index.parentOf(s)
    for (let depth = 0; p && depth < MAX_DEPTH && !isBatch(p) && !isEvent(p); depth++) p = index.parentOf(p)
    if (p && isBatch(p)) { add(p, s); totals.inBatches++ } else if (p && isEvent(p)) { add(p, s); totals.inEvents++ } else totals.elsewhere++
  }
  // A stage span names its batch; the batch also links to its stage spans.
  /** @type {Map<Span, Span>} */
  const batchByMember = new Map()
  for (const s of spans) {
    if (!isBatch(s)) continue
    for (const l of s.links) {
      const member = index.get(l.traceId || s.traceId, l.spanId)
      if (member) batchByMember.set(member, s)
    }
  }

  /** The batch span whose transaction this batch's SQL ran in (following owners). @param {Span} batch */
  function transactionOf (batch) {
    let at = batch
    for (let depth = 0; depth < MAX_DEPTH; depth++) {
      const ownerId = attr(at, TRANSACTION_OWNER)
      const owner = ownerId === undefined ? undefined : index.bySpanId.get(String(ownerId))
      if (!owner || !isBatch(owner) || owner === at) return at
      at = owner
    }
    return at
  }
  const sizeOf = (/** @type {Span} */ batch) => Number(attr(batch, 'switchyard.batch.size')) || batch.links.length || 1
  /** @type {Map<Span, number>} records of every batch whose SQL each transaction carried */
  const recordsOf = new Map()
  /** @type {Map<Span, { count: number, ms: number }>} the SQL under all of them (a chunk's own reads may hang under its own span) */
  const txOwned = new Map()
  for (const s of spans) {
    if (!isBatch(s)) continue
    const tx = transactionOf(s)
    recordsOf.set(tx, (recordsOf.get(tx) || 0) + sizeOf(s))
    const o = owned.get(s)
    if (o) {
      const t = txOwned.get(tx) || { count: 0, ms: 0 }
      txOwned.set(tx, { count: t.count + o.count, ms: t.ms + o.ms })
    }
  }

  /**
   * @param {Span} event
   * @returns {{ statements: number, ms: number, batchSize: number | null, batchMissing: boolean }}
   */
  function sqlOf (event) {
    const own = owned.get(event) || { count: 0, ms: 0 }
    const batchId = attr(event, 'switchyard.batch.span_id')
    let batch = batchByMember.get(event)
    if (!batch && batchId !== undefined) {
      const candidate = index.bySpanId.get(String(batchId))
      if (candidate && isBatch(candidate)) batch = candidate
    }
    if (!batch) return { statements: own.count, ms: own.ms, batchSize: null, batchMissing: batchId !== undefined }
    const tx = transactionOf(batch)
    const records = recordsOf.get(tx) || sizeOf(batch)
    const shared = txOwned.get(tx) || { count: 0, ms: 0 }
    return { statements: own.count + shared.count / records, ms: own.ms + shared.ms / records, batchSize: sizeOf(batch), batchMissing: false }
  }

  return { sqlOf, totals }
}

module.exports = { createSqlAttribution }
