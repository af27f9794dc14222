'use strict'

// The position handler: each batch of one partition (one set of accounts) in
// one transaction — transfers and accounts read and locked once, commands
// applied in message order, then one statement per table.

const { traceHeaders } = require('@switchyard/shared/kafka')
const { lockedTransfersOf, toTransferMap, updateTransfers, insertStateChanges } = require('../common/transfer-repository')
const { accountsQuery, toAccounts, lockAccounts, saveAccountValues, insertPositionChanges } = require('./repository')
const { applyPositionCommands } = require('./calculate')

const ACTIONS = new Set(['reserve', 'commit', 'abort'])

/** @param {import('../../../shared/src/kafka/envelope').IncomingMessage} record @returns {import('./calculate').PositionCommand} */
function toCommand (record) {
  const v = record.value
  if (!v || !ACTIONS.has(v.action) || typeof v.transferId !== 'string') {
    throw Object.assign(new Error('malformed position command'), { retriable: false })
  }
  return { action: v.action, transferId: v.transferId, reason: v.reason, prepare: v.prepare, fulfil: v.fulfil, timestamp: record.timestamp, trace: traceHeaders(record) }
}

/**
 * @param {{ config: import('@switchyard/shared/config').Config, now?: () => number }} deps
 * @returns {import('../../../shared/src/kafka/run-consumer').HandleBatch}
 */
function createPositionHandler ({ config, now = Date.now }) {
  return async ({ trx, writes, prefetched }, records) => {
    const commands = records.map(toCommand)
    // Read and locked with BEGIN (positionPrefetch).
    const transfers = toTransferMap(prefetched[0])
    const prefetchedAccounts = toAccounts(prefetched[1])
    // The transfer row is the authority on whose account moves.
    const accountIds = new Set()
    for (const c of commands) {
      const t = transfers.get(c.transferId)
      if (!t) continue
      const id = c.action === 'commit' ? t.payee_account_id : t.payer_account_id
      if (id !== null) accountIds.add(id)
    }
    // Accounts the messages named were locked with the first round trip;
    // any other one the transfer rows name (never, by construction) now.
    const missing = [...accountIds].filter((id) => !prefetchedAccounts.has(id)).sort((a, b) => a - b)
    const accounts = new Map([...prefetchedAccounts, ...await lockAccounts(trx, missing)])
    const result = applyPositionCommands({ config, commands, transfers, accounts, nowMs: now() })
    const counts = new Map()
    for (const c of result.positionChanges) counts.set(c.account_id, (counts.get(c.account_id) || 0) + 1)
    // Effects go out with the runner's progress record in one round trip.
    insertPositionChanges(trx, writes, result.positionChanges)
    saveAccountValues(writes, result.accountValues, counts)
    updateTransfers(writes, result.transferChanges)
    insertStateChanges(trx, writes, result.stateChanges)
    return { outgoing: result.outgoing }
  }
}

/**
 * The reads a batch needs, run with BEGIN in the transaction's first round
 * trip: its transfers and the accounts its messages name, both locked.
 * @param {import('../../../shared/src/kafka/envelope').IncomingMessage[]} records
 */
function positionPrefetch (records) {
  const accountIds = [...new Set(records.map((r) => r.value && Number(r.value.accountId)).filter((id) => Number.isInteger(id)))].sort((a, b) => a - b)
  return [lockedTransfersOf(records), accountsQuery(accountIds)]
}

module.exports = { createPositionHandler, positionPrefetch, toCommand }
