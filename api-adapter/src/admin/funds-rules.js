'use strict'

// The money rules of funds in and funds out, as pure functions of balances.
// Values follow docs/transfers.md: positive means the account owes; a
// SETTLEMENT account's value is minus the liquidity deposited, and the hub's
// HUB_RECONCILIATION account mirrors it, so funds in and a completed funds out
// leave the sum over a currency unchanged.

const { formatAmount, parseAmount, LEDGER_MAX } = require('@switchyard/shared/money')
const { createFspiopError } = require('@switchyard/shared/errors')

/**
 * @typedef {{ accountId: number, value: bigint }} Balance
 * @typedef {{ accountId: number, change: bigint, valueAfter: bigint }} PositionChange
 */

/**
 * @param {Balance} balance
 * @param {bigint} change
 * @returns {PositionChange}
 */
function move (balance, change) {
  const valueAfter = balance.value + change
  if (valueAfter > LEDGER_MAX || valueAfter < -LEDGER_MAX) {
    throw createFspiopError('VALIDATION_ERROR', `account ${balance.accountId} would exceed what the ledger holds`)
  }
  return { accountId: balance.accountId, change, valueAfter }
}

/**
 * recordFundsIn: the deposit becomes liquidity (the settlement account goes
 * down) and the hub's reconciliation account goes up by the same amount.
 * @param {{ amount: bigint, settlement: Balance, hubReconciliation: Balance }} balances
 * @returns {PositionChange[]}
 */
function planFundsIn ({ amount, settlement, hubReconciliation }) {
  return [move(settlement, -amount), move(hubReconciliation, amount)]
}

/**
 * recordFundsOutPrepareReserve: the amount is taken out of the liquidity at
 * once, and only if what is left still covers the participant's position
 * (which includes the transfers it has reserved), so a withdrawal can never
 * leave a payer unable to settle what it owes. The hub side moves at commit.
 * @param {{ amount: bigint, currency: string, settlement: Balance, position: Balance }} balances
 * @returns {PositionChange[]}
 * @throws 4001 when the liquidity left would not cover the position
 */
function planFundsOutReserve ({ amount, currency, settlement, position }) {
  const liquidityAfter = -(settlement.value + amount)
  if (liquidityAfter < position.value) {
    throw createFspiopError('PAYER_FSP_INSUFFICIENT_LIQUIDITY',
      `${currency} liquidity after this funds out would be ${formatAmount(liquidityAfter)}, below the position ${formatAmount(position.value)}`)
  }
  return [move(settlement, amount)]
}

/**
 * recordFundsOutCommit: the money leaves the hub's bank account.
 * @param {{ amount: bigint, hubReconciliation: Balance }} balances
 * @returns {PositionChange[]}
 */
function planFundsOutCommit ({ amount, hubReconciliation }) {
  return [move(hubReconciliation, -amount)]
}

/**
 * recordFundsOutAbort: the reserved amount returns to the liquidity.
 * @param {{ amount: bigint, settlement: Balance }} balances
 * @returns {PositionChange[]}
 */
function planFundsOutAbort ({ amount, settlement }) {
  return [move(settlement, -amount)]
}

/**
 * @typedef {object} FundsRequest
 * @property {number} participantId
 * @property {number} accountId
 * @property {string} action
 * @property {bigint} amount
 * @property {string} currency
 * @property {string} reason
 * @property {string} externalReference
 */

/**
 * Whether a stored funds transfer is the same request again (a resend, which
 * changes nothing) rather than a different one reusing its id (3106).
 * @param {{ participant_id: number, account_id: number, action: string, amount: string,
 *   currency: string, reason: string | null, external_reference: string | null }} stored
 * @param {FundsRequest} request
 */
function isSameFundsRequest (stored, request) {
  return stored.participant_id === request.participantId &&
    stored.account_id === request.accountId &&
    stored.action === request.action &&
    parseAmount(stored.amount) === request.amount &&
    stored.currency === request.currency &&
    (stored.reason ?? '') === request.reason &&
    (stored.external_reference ?? '') === request.externalReference
}

module.exports = { move, planFundsIn, planFundsOutReserve, planFundsOutCommit, planFundsOutAbort, isSameFundsRequest }
