'use strict'

// The prepare handler: a batch of POST /transfers commands becomes one
// multi-row INSERT of transfers (valid ones RECEIVED_PREPARE, the rest
// INVALID with their error), reserve commands keyed by the payer's account,
// and error callbacks. Duplicates are ruled out by the bloom filter first and
// the database second.

const { traceHeaders } = require('@switchyard/shared/kafka')
const { requestHash } = require('../common/hash')
const { FINAL } = require('../common/states')
const notify = require('../common/notify')
const { findTransfers, insertStateChanges } = require('../common/transfer-repository')
const { participantsQuery, toParticipants, insertTransfers, addPendingResend } = require('./repository')
const { planPrepares } = require('./plan')

/** @param {import('../../../shared/src/kafka/envelope').IncomingMessage} record */
function toCommand (record) {
  const v = record.value
  if (!v || v.type !== 'prepare' || typeof v.transferId !== 'string' || !v.payload || !v.headers) {
    throw Object.assign(new Error('malformed prepare command'), { retriable: false })
  }
  return { transferId: v.transferId, headers: v.headers, payload: v.payload, hash: requestHash(v.payload), trace: traceHeaders(record) }
}

/**
 * @param {{ config: import('@switchyard/shared/config').Config, idFilter: ReturnType<typeof import('@switchyard/shared/dedupe').createIdFilter>,
 *   now?: () => number }} deps
 * @returns {import('../../../shared/src/kafka/run-consumer').HandleBatch}
 */
function createPrepareHandler ({ config, idFilter, now = Date.now }) {
  return async ({ trx, writes, prefetched }, records) => {
    const commands = records.map(toCommand)
    const ids = [...new Set(commands.map((c) => c.transferId))]
    // Read with BEGIN (preparePrefetch).
    const participants = toParticipants(prefetched[0])
    const nowMs = now()
    // Only ids the filter may have seen are looked up.
    let existing = await findTransfers(trx, ids.filter((id) => idFilter.mightContain(id)))
    let plan = planPrepares({ config, commands, existing, participants, nowMs })
    try {
      await insertTransfers(trx, plan.rows)
    } catch (err) {
      if (err.code !== 'ER_DUP_ENTRY') throw err
      // An id the filter did not know (another replica's partition before a
      // rebalance, or older than the filter): decide again knowing every id.
      existing = await findTransfers(trx, ids)
      plan = planPrepares({ config, commands, existing, participants, nowMs })
      await insertTransfers(trx, plan.rows)
    }
    insertStateChanges(trx, writes, plan.stateChanges)
    const outgoing = plan.outgoing
    for (const p of plan.pending) {
      if (await addPendingResend(trx, p.transferId, 'pending_payer_resends', [...FINAL])) continue
      // It became final meanwhile: answer now.
      const transfer = (await findTransfers(trx, [p.transferId])).get(p.transferId)
      outgoing.push(notify.currentState(config, { to: p.to, from: config.HUB_NAME, transfer, trace: p.trace }))
    }
    for (const id of ids) idFilter.add(id)
    return { outgoing }
  }
}

/**
 * Read with BEGIN in the transaction's first round trip: the participants
 * the batch names.
 * @param {import('../../../shared/src/kafka/envelope').IncomingMessage[]} records
 */
function preparePrefetch (records) {
  const names = new Set()
  for (const r of records) {
    const p = r.value && r.value.payload
    if (p && typeof p.payerFsp === 'string') names.add(p.payerFsp)
    if (p && typeof p.payeeFsp === 'string') names.add(p.payeeFsp)
  }
  return [participantsQuery([...names])]
}

module.exports = { createPrepareHandler, preparePrefetch }
