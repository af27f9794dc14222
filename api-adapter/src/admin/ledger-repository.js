'use strict'

// The admin API's SQL for balances and funds transfers. Balances change only
// inside a transaction that first locks their rows with lockBalances, and
// every change leaves a participant_position_change row naming the transfer
// (or operation) that explains it.

const { parseAmount, toDbDecimal } = require('@switchyard/shared/money')

/** @typedef {import('./funds-rules').Balance} Balance */
/** @typedef {import('./funds-rules').PositionChange} PositionChange */

/**
 * @typedef {object} FundsTransferRow
 * @property {string} transfer_id
 * @property {number} participant_id
 * @property {number} account_id
 * @property {string} action
 * @property {string} amount DECIMAL(18,4)
 * @property {string} currency
 * @property {string} state RESERVED, COMMITTED or ABORTED
 * @property {string | null} reason
 * @property {string | null} external_reference
 */

const FUNDS_COLUMNS = ['transfer_id', 'participant_id', 'account_id', 'action', 'amount', 'currency', 'state', 'reason', 'external_reference']

/**
 * Locks the position rows of the given accounts (SELECT … FOR UPDATE) in
 * ascending account id order, the one order every writer uses, so two
 * transactions locking overlapping accounts cannot deadlock.
 * @param {import('knex').Knex.Transaction} trx
 * @param {number[]} accountIds
 * @returns {Promise<Map<number, Balance>>}
 */
async function lockBalances (trx, accountIds) {
  const ids = [...new Set(accountIds)].sort((a, b) => a - b)
  const rows = await trx('participant_position').select(['account_id', 'value'])
    .whereIn('account_id', ids).orderBy('account_id').forUpdate()
  if (rows.length !== ids.length) throw new Error(`Position rows missing for accounts ${ids.join(', ')}`)
  return new Map(rows.map((row) => [row.account_id, { accountId: row.account_id, value: parseAmount(row.value) }]))
}

/**
 * Applies changes to rows locked by lockBalances and records them.
 * @param {import('knex').Knex.Transaction} trx
 * @param {string} transferId the funds transfer, or the operation, behind the changes
 * @param {PositionChange[]} changes
 */
async function applyPositionChanges (trx, transferId, changes) {
  if (changes.length === 0) return
  for (const { accountId, valueAfter } of changes) {
    await trx('participant_position').where({ account_id: accountId }).update({
      value: toDbDecimal(valueAfter),
      change_seq: trx.raw('change_seq + 1'),
      updated_at: trx.raw('CURRENT_TIMESTAMP(3)')
    })
  }
  await trx('participant_position_change').insert(changes.map(({ accountId, change, valueAfter }) => ({
    account_id: accountId,
    transfer_id: transferId,
    change: toDbDecimal(change),
    value_after: toDbDecimal(valueAfter)
  })))
}

/**
 * @param {import('knex').Knex.Transaction} trx
 * @param {string} transferId
 * @returns {Promise<FundsTransferRow | undefined>} locked for the rest of the transaction
 */
function findFundsTransfer (trx, transferId) {
  return trx('funds_transfer').select(FUNDS_COLUMNS).where({ transfer_id: transferId }).first().forUpdate()
}

/**
 * @param {import('knex').Knex.Transaction} trx
 * @param {{ transferId: string, participantId: number, accountId: number, action: string, amount: bigint,
 *   currency: string, state: string, reason: string, externalReference: string }} transfer
 */
function insertFundsTransfer (trx, transfer) {
  return trx('funds_transfer').insert({
    transfer_id: transfer.transferId,
    participant_id: transfer.participantId,
    account_id: transfer.accountId,
    action: transfer.action,
    amount: toDbDecimal(transfer.amount),
    currency: transfer.currency,
    state: transfer.state,
    reason: transfer.reason,
    external_reference: transfer.externalReference
  })
}

/** @param {import('knex').Knex.Transaction} trx @param {string} transferId @param {string} state */
function setFundsTransferState (trx, transferId, state) {
  return trx('funds_transfer').where({ transfer_id: transferId })
    .update({ state, updated_at: trx.raw('CURRENT_TIMESTAMP(3)') })
}

module.exports = { lockBalances, applyPositionChanges, findFundsTransfer, insertFundsTransfer, setFundsTransferState }
