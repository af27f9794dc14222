'use strict'

// Decides what a batch of fulfils, payee errors and GETs does (FSPIOP.md
// "Transfers", "Condition and fulfilment", "Duplicates"). Pure: the locked
// transfers and the time come in; changes, commands and callbacks come out.
// Commands for one transfer are applied in order on an in-memory copy.

const { topicName } = require('@switchyard/shared/kafka')
const { S, isFinal } = require('../common/states')
const { errorInfo } = require('../common/errors')
const { fulfilmentMatches } = require('../common/hash')
const { ledgerTime } = require('@switchyard/shared/ledger-time')
const notify = require('../common/notify')

/**
 * @typedef {{ type: 'fulfil' | 'error' | 'get', transferId: string, headers: Record<string, string>, payload?: any, raw?: string,
 *   version?: string, hash: string, timestamp: number, trace: Record<string, string> }} FulfilCommand
 *   raw: the body's text when it is not JSON.stringify(payload), to pass on unchanged;
 *   version: the version to answer the sender in, when not 1.1
 */

/**
 * @param {{ config: import('@switchyard/shared/config').Config, commands: FulfilCommand[],
 *   transfers: Map<string, import('../common/transfer-repository').TransferRow> }} input
 */
function planFulfils ({ config, commands, transfers }) {
  const hub = config.HUB_NAME
  /** @type {Map<string, Record<string, any>>} */
  const transferChanges = new Map()
  const stateChanges = []
  const outgoing = []

  /** @param {any} t @param {Record<string, any>} change */
  function change (t, change) {
    Object.assign(t, change)
    transferChanges.set(t.transfer_id, { ...transferChanges.get(t.transfer_id), ...change })
    if (change.state) stateChanges.push({ transfer_id: t.transfer_id, state: change.state, reason: change.error_description || null })
  }
  // What the hub itself answers a command with is in the version negotiated with its request.
  /** @param {FulfilCommand} c @param {string} code @param {string} detail */
  const reject = (c, code, detail) => outgoing.push(notify.transferError(config, {
    to: c.headers['fspiop-source'], from: hub, transferId: c.transferId, errorInformation: errorInfo(code, detail), contentType: notify.answerContentType(c.version), trace: c.trace
  }))
  /** @param {FulfilCommand} c @param {any} t */
  const answerState = (c, t) => outgoing.push(notify.currentState(config, {
    to: c.headers['fspiop-source'], from: hub, transfer: t, contentType: notify.answerContentType(c.version), trace: c.trace
  }))
  /** @param {any} t @param {'abort' | 'commit'} action @param {Record<string, any>} extra @param {FulfilCommand} c */
  const toPosition = (t, action, extra, c) => outgoing.push({
    topic: topicName(config, 'position'),
    key: String(action === 'commit' ? t.payee_account_id : t.payer_account_id),
    headers: c.trace,
    value: {
      action,
      transferId: t.transfer_id,
      accountId: action === 'commit' ? t.payee_account_id : t.payer_account_id,
      amount: t.amount,
      currency: t.currency,
      // raw, when there is one, is what the payer gets (notify.committedForPayer, errorForPayer);
      // version, what the position handler answers the payee in.
      fulfil: { headers: c.headers, payload: c.payload, raw: c.raw, version: c.version },
      ...extra
    }
  })

  for (const c of commands) {
    const t = transfers.get(c.transferId)
    const source = c.headers['fspiop-source']
    if (c.type === 'get') {
      if (!t || (source !== t.payer_fsp && source !== t.payee_fsp)) reject(c, '3208', `transfer ${c.transferId} was not found`)
      else outgoing.push(notify.transferState(config, { to: source, from: hub, transferId: t.transfer_id, body: notify.stateBody(t), contentType: notify.answerContentType(c.version), trace: c.trace }))
      continue
    }
    if (!t) { reject(c, '3208', `transfer ${c.transferId} was not found`); continue }
    // A stranger learns nothing about a transfer it is not party to, as with GET.
    if (source !== t.payee_fsp && source !== t.payer_fsp) { reject(c, '3208', `transfer ${c.transferId} was not found`); continue }
    if (source !== t.payee_fsp) { reject(c, '3100', `only the payee may complete transfer ${t.transfer_id}`); continue }
    if (c.headers['fspiop-destination'] && c.headers['fspiop-destination'] !== t.payer_fsp) {
      reject(c, '3100', `FSPIOP-Destination must be the payer ${t.payer_fsp}`)
      continue
    }
    if (t.fulfil_hash) {
      // A second fulfil or error for the same transfer.
      if (t.fulfil_hash !== c.hash) reject(c, '3106', `transfer ${t.transfer_id} was already completed with a different request`)
      else if (isFinal(t.state)) answerState(c, t)
      else change(t, { pending_payee_resends: t.pending_payee_resends + 1 })
      continue
    }
    if (t.state !== S.RESERVED) {
      if (isFinal(t.state)) answerState(c, t)
      else reject(c, '3100', `transfer ${t.transfer_id} is not reserved`)
      continue
    }
    if (c.timestamp >= new Date(t.expiration).getTime()) {
      reject(c, '3303', `transfer ${t.transfer_id} expired at ${new Date(t.expiration).toISOString()}`)
      continue
    }
    if (c.type === 'error') {
      const info = c.payload.errorInformation
      change(t, { state: S.RECEIVED_ERROR, error_code: info.errorCode, error_description: String(info.errorDescription).slice(0, 256), fulfil_hash: c.hash })
      toPosition(t, 'abort', { reason: 'error' }, c)
      continue
    }
    const payeeReserved = c.payload.transferState === 'RESERVED'
    if (fulfilmentMatches(c.payload.fulfilment, t.ilp_condition)) {
      // The API refuses a date the ledger cannot hold; from elsewhere, the time the fulfil arrived.
      const completed = ledgerTime(c.payload.completedTimestamp).ms
      change(t, {
        state: S.RECEIVED_FULFIL,
        fulfilment: c.payload.fulfilment,
        fulfil_hash: c.hash,
        completed_at: new Date(completed ?? c.timestamp),
        payee_reserved: payeeReserved
      })
      toPosition(t, 'commit', {}, c)
    } else {
      const error = errorInfo('3100', 'fulfilment does not match the condition')
      change(t, { state: S.RECEIVED_ERROR, error_code: error.errorCode, error_description: error.errorDescription, fulfil_hash: c.hash, payee_reserved: payeeReserved })
      toPosition(t, 'abort', { reason: 'invalid-fulfilment' }, c)
    }
  }
  return { transferChanges, stateChanges, outgoing }
}

module.exports = { planFulfils }
