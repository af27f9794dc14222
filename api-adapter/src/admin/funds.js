'use strict'

// Funds in and funds out. Each request is one transaction that locks the
// balances it changes, applies the rules of funds-rules.js, records the
// changes and the funds transfer, and commits; or changes nothing. The
// transfer id makes requests idempotent: the same request again changes
// nothing, a different request under the same id is 3106.

const { createFspiopError } = require('@switchyard/shared/errors')
const { parseAmount } = require('@switchyard/shared/money')
const repo = require('./repository')
const ledger = require('./ledger-repository')
const rules = require('./funds-rules')
const { readPositiveAmount } = require('./amounts')
const { requireParticipant, requireAccount, requireAccountByType } = require('./lookups')
const { conflict, isDuplicateKey } = require('./errors')

/** @typedef {{ db: import('knex').Knex, config: import('@switchyard/shared/config').Config }} FundsDeps */

/**
 * The participant and its SETTLEMENT account `{id}`, checked against the currency.
 * @param {import('knex').Knex} trx
 * @param {string} name
 * @param {number} accountId
 */
async function loadSettlementAccount (trx, name, accountId) {
  const participant = await requireParticipant(trx, name)
  const account = await requireAccount(trx, participant, accountId)
  if (account.ledger_account_type !== 'SETTLEMENT') {
    throw createFspiopError('VALIDATION_ERROR', `account ${accountId} is a ${account.ledger_account_type} account; funds move through the SETTLEMENT account`)
  }
  return { participant, account }
}

/**
 * @param {import('knex').Knex} trx
 * @param {string} hubName
 * @param {string} currency
 */
async function requireHubReconciliation (trx, hubName, currency) {
  const hub = await repo.findHubAccount(trx, hubName, currency, 'HUB_RECONCILIATION')
  if (!hub) throw conflict(`no ${currency} HUB_RECONCILIATION account: create it with POST /participants/${hubName}/accounts`)
  return hub
}

/**
 * Runs a transaction, and once more if it met a duplicate key: a concurrent
 * request with the same transfer id committed first, and the second run
 * answers as a resend (or 3106).
 * @template T
 * @param {import('knex').Knex} db
 * @param {(trx: import('knex').Knex.Transaction) => Promise<T>} work
 */
async function transactionRetryingDuplicates (db, work) {
  try {
    return await db.transaction(work)
  } catch (err) {
    if (!isDuplicateKey(err)) throw err
    return db.transaction(work)
  }
}

/**
 * POST /participants/{name}/accounts/{id}: recordFundsIn or recordFundsOutPrepareReserve.
 * @param {FundsDeps} deps
 * @param {{ name: string, accountId: number, body: any }} request
 */
function recordFunds ({ db, config }, { name, accountId, body }) {
  return transactionRetryingDuplicates(db, async (trx) => {
    const { participant, account } = await loadSettlementAccount(trx, name, accountId)
    const { currency } = body.amount
    if (currency !== account.currency) {
      throw createFspiopError('VALIDATION_ERROR', `amount.currency ${currency} is not the currency of account ${accountId} (${account.currency})`)
    }
    const request = {
      transferId: body.transferId,
      participantId: participant.participant_id,
      accountId,
      action: body.action,
      amount: readPositiveAmount(body.amount.amount, currency, 'amount.amount'),
      currency,
      reason: body.reason,
      externalReference: body.externalReference
    }
    const existing = await ledger.findFundsTransfer(trx, request.transferId)
    if (existing) {
      if (rules.isSameFundsRequest(existing, request)) return
      throw createFspiopError('MODIFIED_REQUEST', `transfer ${request.transferId} was recorded with a different request`)
    }
    if (!participant.is_active) throw conflict(`participant ${name} is inactive`)
    if (!account.is_active) throw conflict(`account ${accountId} is inactive`)
    // The hub account is needed at commit; refuse a reservation that could never commit.
    const hub = await requireHubReconciliation(trx, config.HUB_NAME, currency)
    // Refused like an inactive settlement account. A funds out reserved before
    // the hub's account was deactivated may still be committed or aborted.
    if (!hub.is_active) throw conflict(`the hub's ${currency} HUB_RECONCILIATION account ${hub.account_id} is inactive`)
    let changes
    if (request.action === 'recordFundsIn') {
      const balances = await ledger.lockBalances(trx, [account.account_id, hub.account_id])
      changes = rules.planFundsIn({ amount: request.amount, settlement: balances.get(account.account_id), hubReconciliation: balances.get(hub.account_id) })
    } else {
      const position = await requireAccountByType(trx, participant, currency, 'POSITION')
      const balances = await ledger.lockBalances(trx, [position.account_id, account.account_id])
      changes = rules.planFundsOutReserve({ amount: request.amount, currency, settlement: balances.get(account.account_id), position: balances.get(position.account_id) })
    }
    const state = request.action === 'recordFundsIn' ? 'COMMITTED' : 'RESERVED'
    await ledger.insertFundsTransfer(trx, { ...request, state })
    await ledger.applyPositionChanges(trx, request.transferId, changes)
  })
}

const FINAL_STATE = { recordFundsOutCommit: 'COMMITTED', recordFundsOutAbort: 'ABORTED' }

/**
 * PUT /participants/{name}/accounts/{id}/transfers/{transferId}: commit or abort a funds out.
 * @param {FundsDeps} deps
 * @param {{ name: string, accountId: number, transferId: string, body: { action: string, reason: string } }} request
 */
function completeFundsOut ({ db, config }, { name, accountId, transferId, body }) {
  return db.transaction(async (trx) => {
    const { participant, account } = await loadSettlementAccount(trx, name, accountId)
    const transfer = await ledger.findFundsTransfer(trx, transferId)
    if (!transfer || transfer.participant_id !== participant.participant_id || transfer.account_id !== accountId) {
      throw createFspiopError('TRANSFER_ID_NOT_FOUND', `no funds transfer ${transferId} on account ${accountId} of ${name}`)
    }
    if (transfer.action !== 'recordFundsOutPrepareReserve') {
      throw createFspiopError('VALIDATION_ERROR', `transfer ${transferId} is a ${transfer.action}; only a funds out is committed or aborted`)
    }
    const target = FINAL_STATE[body.action]
    if (transfer.state === target) return
    if (transfer.state !== 'RESERVED') {
      throw createFspiopError('MODIFIED_REQUEST', `transfer ${transferId} is already ${transfer.state}`)
    }
    const amount = parseAmount(transfer.amount)
    let changes
    if (target === 'COMMITTED') {
      const hub = await requireHubReconciliation(trx, config.HUB_NAME, account.currency)
      const balances = await ledger.lockBalances(trx, [hub.account_id])
      changes = rules.planFundsOutCommit({ amount, hubReconciliation: balances.get(hub.account_id) })
    } else {
      const balances = await ledger.lockBalances(trx, [account.account_id])
      changes = rules.planFundsOutAbort({ amount, settlement: balances.get(account.account_id) })
    }
    await ledger.applyPositionChanges(trx, transferId, changes)
    await ledger.setFundsTransferState(trx, transferId, target)
  })
}

module.exports = { recordFunds, completeFundsOut }
