'use strict'

// The fulfil handler: fulfils, payee errors and GETs for a batch of
// transfers, with the transfers read and locked once and one UPDATE for all.

const { traceHeaders } = require('@switchyard/shared/kafka')
const { requestHash } = require('../common/hash')
const { lockedTransfersOf, toTransferMap, updateTransfers, insertStateChanges } = require('../common/transfer-repository')
const { planFulfils } = require('./plan')

const TYPES = new Set(['fulfil', 'error', 'get'])

/** @param {import('../../../shared/src/kafka/envelope').IncomingMessage} record @returns {import('./plan').FulfilCommand} */
function toCommand (record) {
  const v = record.value
  if (!v || !TYPES.has(v.type) || typeof v.transferId !== 'string' || !v.headers || (v.type !== 'get' && !v.payload)) {
    throw Object.assign(new Error('malformed fulfil command'), { retriable: false })
  }
  return {
    type: v.type,
    transferId: v.transferId,
    headers: v.headers,
    payload: v.payload,
    // The payee's text, when it is not JSON.stringify(payload) (api-adapter/src/commands.js).
    raw: typeof v.raw === 'string' ? v.raw : undefined,
    // The version to answer the sender in, when it is not 1.1.
    version: typeof v.version === 'string' ? v.version : undefined,
    // Fulfils and errors share one fingerprint column: the type is part of it.
    hash: requestHash({ type: v.type, payload: v.payload ?? null }),
    timestamp: record.timestamp,
    trace: traceHeaders(record)
  }
}

/**
 * @param {{ config: import('@switchyard/shared/config').Config }} deps
 * @returns {import('../../../shared/src/kafka/run-consumer').HandleBatch}
 */
function createFulfilHandler ({ config }) {
  return async ({ trx, writes, prefetched }, records) => {
    const commands = records.map(toCommand)
    // Read and locked with BEGIN (fulfilPrefetch).
    const transfers = toTransferMap(prefetched[0])
    const plan = planFulfils({ config, commands, transfers })
    updateTransfers(writes, plan.transferChanges)
    insertStateChanges(trx, writes, plan.stateChanges)
    return { outgoing: plan.outgoing }
  }
}

/**
 * Read with BEGIN in the transaction's first round trip: the batch's
 * transfers, locked (fulfils and errors change them; GETs share the batch).
 * @param {import('../../../shared/src/kafka/envelope').IncomingMessage[]} records
 */
function fulfilPrefetch (records) {
  return [lockedTransfersOf(records)]
}

module.exports = { createFulfilHandler, fulfilPrefetch, toCommand }
