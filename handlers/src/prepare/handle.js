'use strict'

// The prepare handler: a batch of POST /transfers commands becomes one
// multi-row INSERT of transfers (valid ones RECEIVED_PREPARE, the rest
// INVALID with their error), reserve commands keyed by the payer's account,
// and error callbacks. Duplicates are ruled out by the bloom filter first and
// the database second. A batch is two round trips: its reads with BEGIN, its
// writes with COMMIT.

const { traceHeaders } = require('@switchyard/shared/kafka')
const { requestHash } = require('../common/hash')
const { transfersQuery, toTransferMap, updateTransfers, insertStateChanges } = require('../common/transfer-repository')
const { participantsQuery, toParticipants } = require('./repository')
const { planPrepares } = require('./plan')

/** @param {import('../../../shared/src/kafka/envelope').IncomingMessage} record */
function toCommand (record) {
  const v = record.value
  if (!v || v.type !== 'prepare' || typeof v.transferId !== 'string' || !v.payload || !v.headers) {
    throw Object.assign(new Error('malformed prepare command'), { retriable: false })
  }
  return {
    transferId: v.transferId,
    headers: v.headers,
    payload: v.payload,
    // The payer's text, when it is not JSON.stringify(payload) (api-adapter/src/commands.js).
    raw: typeof v.raw === 'string' ? v.raw : undefined,
    // The version to answer the payer in, when it is not 1.1.
    version: typeof v.version === 'string' ? v.version : undefined,
    hash: requestHash(v.payload),
    trace: traceHeaders(record)
  }
}

/**
 * @param {{ config: import('@switchyard/shared/config').Config, idFilter: ReturnType<typeof import('@switchyard/shared/dedupe').createIdFilter>,
 *   now?: () => number }} deps
 * @returns {{ handleBatch: import('../../../shared/src/kafka/run-consumer').HandleBatch,
 *   prefetch: (records: import('../../../shared/src/kafka/envelope').IncomingMessage[]) => { sql: string, bindings: readonly any[] }[] }}
 */
function createPrepareHandler ({ config, idFilter, now = Date.now }) {
  return {
    /**
     * Read with BEGIN in the transaction's first round trip: the participants
     * the batch names, and — locked — the transfers whose ids the filter may
     * have seen (the only ones that can be duplicates).
     */
    prefetch (records) {
      const names = new Set()
      const maybeSeen = new Set()
      for (const r of records) {
        const v = r.value
        const p = v && v.payload
        if (p && typeof p.payerFsp === 'string') names.add(p.payerFsp)
        if (p && typeof p.payeeFsp === 'string') names.add(p.payeeFsp)
        if (v && typeof v.transferId === 'string' && idFilter.mightContain(v.transferId)) maybeSeen.add(v.transferId)
      }
      return [participantsQuery([...names]), transfersQuery([...maybeSeen], { lock: true })]
    },

    async handleBatch ({ trx, writes, prefetched }, records) {
      const commands = records.map(toCommand)
      const participants = toParticipants(prefetched[0])
      const existing = toTransferMap(prefetched[1])
      const plan = planPrepares({ config, commands, existing, participants, nowMs: now() })
      // New rows go with the COMMIT. An id the filter did not know (another
      // replica's partition before a rebalance, or older than the filter)
      // fails the INSERT and the runner retries the batch; the filter knows
      // every id of it by then, so the retry reads that row and answers a
      // duplicate.
      if (plan.rows.length) writes.add(trx('transfer').insert(plan.rows))
      insertStateChanges(trx, writes, plan.stateChanges)
      // Duplicates of transfers still in flight (their rows are locked since
      // BEGIN, so still in flight): answered when they reach a final state.
      /** @type {Map<string, Record<string, any>>} */
      const resends = new Map()
      for (const p of plan.pending) {
        const t = /** @type {import('../common/transfer-repository').TransferRow} */ (existing.get(p.transferId))
        t.pending_payer_resends++
        resends.set(p.transferId, { pending_payer_resends: t.pending_payer_resends })
      }
      updateTransfers(writes, resends)
      for (const c of commands) idFilter.add(c.transferId)
      return { outgoing: plan.outgoing }
    }
  }
}

module.exports = { createPrepareHandler, toCommand }
