'use strict'

// Decides, for a batch of prepares, what to store and what to send. Pure:
// the stored transfers, participants and the time come in as arguments, so
// the same function runs again if the database knew ids the bloom filter did
// not.

const { topicName } = require('@switchyard/shared/kafka')
const { parseAmount, formatAmount, toDbDecimal, LEDGER_MAX } = require('@switchyard/shared/money')
const { ledgerTime } = require('@switchyard/shared/ledger-time')
const { validatePrepare } = require('./validate')
const { S, isFinal } = require('../common/states')
const { errorInfo } = require('../common/errors')
const notify = require('../common/notify')

/**
 * @typedef {{ transferId: string, headers: Record<string, string>, payload: any, raw?: string, version?: string, hash: string,
 *   trace: Record<string, string> }} PrepareCommand
 *   raw: the body's text when it is not JSON.stringify(payload), to forward unchanged;
 *   version: the version to answer the payer in, when not 1.1
 * @typedef {import('../common/transfer-repository').TransferRow} TransferRow
 */

/** @param {any} amount */
function safeUnits (amount) {
  try {
    const units = parseAmount(String(amount && amount.amount))
    return units > 0n && units <= LEDGER_MAX ? units : 0n
  } catch {
    return 0n
  }
}

/**
 * @param {PrepareCommand} c
 * @param {import('./validate').Verdict} verdict
 * @param {number} nowMs
 */
function toRow (c, verdict, nowMs) {
  const p = c.payload
  // An invalid prepare is stored too: with a time the column holds.
  const expiresAt = ledgerTime(p.expiration).ms ?? nowMs
  return {
    transfer_id: c.transferId,
    payer_fsp: String(p.payerFsp ?? '').slice(0, 128),
    payee_fsp: String(p.payeeFsp ?? '').slice(0, 128),
    payer_account_id: verdict.ok ? verdict.payerAccountId : null,
    payee_account_id: verdict.ok ? verdict.payeeAccountId : null,
    amount: toDbDecimal(verdict.ok ? verdict.amount : safeUnits(p.amount)),
    currency: String((p.amount && p.amount.currency) ?? '').slice(0, 3),
    ilp_condition: String(p.condition ?? '').slice(0, 48),
    expiration: new Date(expiresAt),
    request_hash: c.hash,
    state: verdict.ok ? S.RECEIVED_PREPARE : S.INVALID,
    error_code: verdict.ok ? null : verdict.error.errorCode,
    error_description: verdict.ok ? null : verdict.error.errorDescription.slice(0, 256),
    fulfilment: null,
    completed_at: null,
    pending_payer_resends: 0
  }
}

/**
 * @param {{ config: import('@switchyard/shared/config').Config, commands: PrepareCommand[],
 *   existing: Map<string, TransferRow>, participants: Map<string, import('./validate').ParticipantView>, nowMs: number }} input
 */
function planPrepares ({ config, commands, existing, participants, nowMs }) {
  const rows = []
  const stateChanges = []
  const outgoing = []
  /** Duplicates of transfers stored earlier and still in flight. */
  const pending = []
  /** @type {Map<string, any>} */
  const fresh = new Map()
  const hub = config.HUB_NAME

  // What the hub itself answers a prepare with (an error, a resend's state)
  // is in the version negotiated with it (notify.answerContentType).
  for (const c of commands) {
    const source = c.headers['fspiop-source']
    const prior = fresh.get(c.transferId) || existing.get(c.transferId)
    if (prior) {
      if (prior.request_hash !== c.hash) {
        outgoing.push(notify.transferError(config, {
          to: source, from: hub, transferId: c.transferId, contentType: notify.answerContentType(c.version), trace: c.trace, errorInformation: errorInfo('3106', `transfer ${c.transferId} was sent before with a different body`)
        }))
      } else if (isFinal(prior.state)) {
        outgoing.push(notify.currentState(config, { to: source, from: hub, transfer: prior, contentType: notify.answerContentType(c.version), trace: c.trace }))
      } else if (fresh.has(c.transferId)) {
        prior.pending_payer_resends++
      } else {
        pending.push({ transferId: c.transferId, to: source, trace: c.trace })
      }
      continue
    }
    const verdict = validatePrepare(c, participants, nowMs)
    const row = toRow(c, verdict, nowMs)
    rows.push(row)
    fresh.set(c.transferId, row)
    if (verdict.ok) {
      stateChanges.push({ transfer_id: c.transferId, state: S.RECEIVED_PREPARE })
      outgoing.push({
        topic: topicName(config, 'position'),
        key: String(verdict.payerAccountId),
        headers: c.trace,
        value: {
          action: 'reserve',
          transferId: c.transferId,
          accountId: verdict.payerAccountId,
          amount: formatAmount(verdict.amount),
          currency: c.payload.amount.currency,
          // raw, when there is one, is what the payee gets (notify.forwardPrepare);
          // version, what the position handler answers the payer in.
          prepare: { headers: c.headers, payload: c.payload, raw: c.raw, version: c.version }
        }
      })
    } else {
      stateChanges.push({ transfer_id: c.transferId, state: S.INVALID, reason: verdict.error.errorDescription })
      outgoing.push(notify.transferError(config, {
        to: source, from: hub, transferId: c.transferId, errorInformation: verdict.error, contentType: notify.answerContentType(c.version), trace: c.trace
      }))
    }
  }
  return { rows, stateChanges, outgoing, pending }
}

module.exports = { planPrepares }
