'use strict'

// The rules a prepare must pass before the payer's position is touched
// (FSPIOP.md "Transfers", "Condition and fulfilment"). Pure: participants and
// the time come in as arguments.

const { fitsCurrency, parseAmount, isValidAmount, LEDGER_MAX } = require('@switchyard/shared/money')
const { ledgerTime } = require('@switchyard/shared/ledger-time')
const { isValidCondition } = require('../common/hash')
const { errorInfo } = require('../common/errors')

/**
 * @typedef {{ active: boolean, accounts: Map<string, { accountId: number, active: boolean }> }} ParticipantView
 * @typedef {{ ok: boolean, payerAccountId?: number, payeeAccountId?: number, amount?: bigint,
 *   error?: { errorCode: string, errorDescription: string } }} Verdict
 */

/**
 * @param {string} side 'Payer' or 'Payee'
 * @param {string} name
 * @param {ParticipantView | undefined} p
 * @param {string} currency
 * @returns {{ accountId?: number, error?: { errorCode: string, errorDescription: string } }}
 */
function checkParty (side, name, p, currency) {
  if (!p) return { error: errorInfo(side === 'Payer' ? '3202' : '3203', `${name} is not a registered participant`) }
  if (!p.active) return { error: errorInfo('3100', `${side} FSP ${name} is inactive`) }
  const account = p.accounts.get(currency)
  const unsupported = side === 'Payer' ? '4103' : '5106'
  if (!account) return { error: errorInfo(unsupported, `${name} has no ${currency} position account`) }
  if (!account.active) return { error: errorInfo(unsupported, `${name}'s ${currency} account is inactive`) }
  return { accountId: account.accountId }
}

/**
 * @param {{ headers: Record<string, string>, payload: any }} prepare
 * @param {Map<string, ParticipantView>} participants
 * @param {number} nowMs
 * @returns {Verdict}
 */
function validatePrepare ({ headers, payload }, participants, nowMs) {
  const fail = (code, detail) => /** @type {Verdict} */ ({ ok: false, error: errorInfo(code, detail) })
  const { payerFsp, payeeFsp, amount, condition, expiration } = payload
  if (headers['fspiop-source'] !== payerFsp) return fail('3100', `FSPIOP-Source ${headers['fspiop-source']} does not match payerFsp ${payerFsp}`)
  if (headers['fspiop-destination'] && headers['fspiop-destination'] !== payeeFsp) {
    return fail('3100', `FSPIOP-Destination ${headers['fspiop-destination']} does not match payeeFsp ${payeeFsp}`)
  }
  if (payerFsp === payeeFsp) return fail('3100', 'payer and payee are the same participant')
  if (!amount || !isValidAmount(amount.amount)) return fail('3100', 'amount is not a valid FSPIOP amount')
  if (!fitsCurrency(amount.amount, amount.currency)) return fail('3100', `amount ${amount.amount} has more decimals than ${amount.currency} allows`)
  const units = parseAmount(amount.amount)
  if (units > LEDGER_MAX) return fail('3100', `amount ${amount.amount} exceeds the ledger maximum`)
  if (units <= 0n) return fail('3100', 'amount must be greater than zero')
  if (typeof condition !== 'string' || !isValidCondition(condition)) return fail('3100', 'condition must be the base64url encoding of 32 bytes')
  // The API refuses these at once; a command from elsewhere must not fail the batch's transaction.
  const { ms: expiresAt, problem } = ledgerTime(expiration)
  if (expiresAt === undefined) return fail('3100', `expiration ${expiration} ${problem}`)
  if (expiresAt <= nowMs) return fail('3100', `expiration ${expiration} is in the past`)
  const payer = checkParty('Payer', payerFsp, participants.get(payerFsp), amount.currency)
  if (payer.error) return { ok: false, error: payer.error }
  const payee = checkParty('Payee', payeeFsp, participants.get(payeeFsp), amount.currency)
  if (payee.error) return { ok: false, error: payee.error }
  return { ok: true, payerAccountId: payer.accountId, payeeAccountId: payee.accountId, amount: units }
}

module.exports = { validatePrepare }
