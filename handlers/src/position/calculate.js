'use strict'

// Applies a partition's position commands in message order with running
// totals (docs/transfers.md "Positions"). Pure: stored transfers and account
// balances come in; state changes, position changes and callbacks come out.
// A command that finds its transfer past the state it expects changes
// nothing, so a late or repeated command is harmless.

const { parseAmount } = require('@switchyard/shared/money')
const { S } = require('../common/states')
const { errorInfo } = require('../common/errors')
const notify = require('../common/notify')

/**
 * @typedef {import('../common/notify').SentRequest} Request a participant's request as the command carries it
 * @typedef {{ action: 'reserve' | 'commit' | 'abort', transferId: string, reason?: string, timestamp: number,
 *   prepare?: Request, fulfil?: Request, trace: Record<string, string> }} PositionCommand
 * @typedef {{ value: bigint, netDebitCap: bigint | null, liquidity: bigint | null }} AccountView
 */

/**
 * The PATCH that answers a payee's RESERVED: in the version negotiated with
 * that PUT, but never 1.0, which has no PATCH (the RESERVED state came with 1.1).
 * @param {PositionCommand} c
 */
function patchContentType (c) {
  const version = c.fulfil && c.fulfil.version
  return notify.answerContentType(version === '1.0' ? undefined : version)
}

/**
 * @param {{ config: import('@switchyard/shared/config').Config, commands: PositionCommand[],
 *   transfers: Map<string, import('../common/transfer-repository').TransferRow>, accounts: Map<number, AccountView>, nowMs: number }} input
 */
function applyPositionCommands ({ config, commands, transfers, accounts, nowMs }) {
  const hub = config.HUB_NAME
  /** @type {Map<string, Record<string, any>>} */
  const transferChanges = new Map()
  const stateChanges = []
  const positionChanges = []
  /** @type {Set<number>} */
  const touched = new Set()
  const outgoing = []

  /** @param {any} t @param {string} state @param {Record<string, any>} [extra] */
  function setState (t, state, extra = {}) {
    t.state = state
    Object.assign(t, extra)
    transferChanges.set(t.transfer_id, { ...transferChanges.get(t.transfer_id), state, ...extra })
    stateChanges.push({ transfer_id: t.transfer_id, state, reason: extra.error_description || null })
  }

  /** @param {number} accountId @param {string} transferId @param {bigint} change */
  function move (accountId, transferId, change) {
    const account = accounts.get(accountId)
    account.value += change
    touched.add(accountId)
    positionChanges.push({ account_id: accountId, transfer_id: transferId, change, value_after: account.value })
  }

  /**
   * Final state reached: duplicates that waited for it are answered now.
   * @param {any} t @param {(import('../../../shared/src/kafka/envelope').OutgoingMessage) | null} toPayer @param {(import('../../../shared/src/kafka/envelope').OutgoingMessage) | null} toPayee
   */
  function finish (t, toPayer, toPayee) {
    const copies = []
    for (let i = 0; i < t.pending_payer_resends; i++) copies.push(notify.currentState(config, { to: t.payer_fsp, from: hub, transfer: t }))
    for (let i = 0; i < t.pending_payee_resends; i++) copies.push(notify.currentState(config, { to: t.payee_fsp, from: hub, transfer: t }))
    if (t.pending_payer_resends || t.pending_payee_resends) {
      t.pending_payer_resends = 0
      t.pending_payee_resends = 0
      transferChanges.set(t.transfer_id, { ...transferChanges.get(t.transfer_id), pending_payer_resends: 0, pending_payee_resends: 0 })
    }
    for (const m of [toPayer, toPayee, ...copies]) if (m) outgoing.push(m)
  }

  /** @param {any} t @param {Record<string, string>} trace */
  function expire (t, trace) {
    const reserved = t.state === S.RESERVED
    if (reserved) move(t.payer_account_id, t.transfer_id, -parseAmount(t.amount))
    const error = errorInfo('3303', `transfer ${t.transfer_id} expired at ${new Date(t.expiration).toISOString()}`)
    setState(t, reserved ? S.EXPIRED_RESERVED : S.EXPIRED_PREPARED, { error_code: error.errorCode, error_description: error.errorDescription })
    finish(t,
      notify.transferError(config, { to: t.payer_fsp, from: hub, transferId: t.transfer_id, errorInformation: error, trace }),
      notify.transferError(config, { to: t.payee_fsp, from: hub, transferId: t.transfer_id, errorInformation: error, trace }))
  }

  /** @param {any} t @param {PositionCommand} c */
  function reserve (t, c) {
    if (t.state !== S.RECEIVED_PREPARE) return
    if (Math.max(c.timestamp, nowMs) >= new Date(t.expiration).getTime()) return expire(t, c.trace)
    const account = accounts.get(t.payer_account_id)
    const amount = parseAmount(t.amount)
    const after = account.value + amount
    // Liquidity first, then the cap: a payer over both hears 4001, as from a Mojaloop hub.
    let error
    if (after > (account.liquidity ?? 0n)) error = errorInfo('4001', `${t.payer_fsp} has insufficient ${t.currency} liquidity`)
    else if (after > (account.netDebitCap ?? 0n)) error = errorInfo('4200', `position would exceed the net debit cap of ${t.payer_fsp} in ${t.currency}`)
    if (error) {
      setState(t, S.ABORTED_REJECTED, { error_code: error.errorCode, error_description: error.errorDescription })
      // The payer's prepare is refused: in the version negotiated with it.
      const contentType = notify.answerContentType(c.prepare && c.prepare.version)
      return finish(t, notify.transferError(config, { to: t.payer_fsp, from: hub, transferId: t.transfer_id, errorInformation: error, contentType, trace: c.trace }), null)
    }
    move(t.payer_account_id, t.transfer_id, amount)
    setState(t, S.RESERVED)
    outgoing.push(notify.forwardPrepare(config, { transferId: t.transfer_id, payee: t.payee_fsp, prepare: c.prepare, trace: c.trace }))
  }

  /** @param {any} t @param {PositionCommand} c */
  function commit (t, c) {
    if (t.state !== S.RECEIVED_FULFIL) return
    move(t.payee_account_id, t.transfer_id, -parseAmount(t.amount))
    setState(t, S.COMMITTED)
    const body = notify.stateBody(t)
    // The payer hears the payee's PUT, in the payee's Content-Type; the payee,
    // answered by the hub, in the version negotiated with its PUT, a PATCH too.
    const payeeContentType = c.fulfil && c.fulfil.headers['content-type']
    const toPayee = t.payee_reserved
      ? notify.transferState(config, { to: t.payee_fsp, from: hub, transferId: t.transfer_id, body: { completedTimestamp: body.completedTimestamp, transferState: 'COMMITTED' }, method: 'PATCH', contentType: patchContentType(c), trace: c.trace })
      : notify.transferState(config, { to: t.payee_fsp, from: hub, transferId: t.transfer_id, body, contentType: notify.answerContentType(c.fulfil && c.fulfil.version), trace: c.trace })
    const toPayer = notify.committedForPayer(c.fulfil, body)
    finish(t, notify.transferState(config, { to: t.payer_fsp, from: t.payee_fsp, transferId: t.transfer_id, body: toPayer.body, signed: toPayer.signed, contentType: payeeContentType, trace: c.trace }), toPayee)
  }

  /** @param {any} t @param {PositionCommand} c */
  function abort (t, c) {
    if (c.reason === 'expired') {
      if (t.state === S.RECEIVED_PREPARE || t.state === S.RESERVED) expire(t, c.trace)
      return
    }
    if (t.state !== S.RECEIVED_ERROR) return
    move(t.payer_account_id, t.transfer_id, -parseAmount(t.amount))
    setState(t, S.ABORTED_ERROR)
    const errorInformation = { errorCode: t.error_code, errorDescription: t.error_description || '' }
    const fromPayee = c.reason === 'error'
    let toPayee = null
    if (!fromPayee) {
      // The payee's fulfilment is refused: in the version negotiated with its PUT.
      toPayee = t.payee_reserved
        ? notify.transferState(config, { to: t.payee_fsp, from: hub, transferId: t.transfer_id, body: { completedTimestamp: new Date(nowMs).toISOString(), transferState: 'ABORTED' }, method: 'PATCH', contentType: patchContentType(c), trace: c.trace })
        : notify.transferError(config, { to: t.payee_fsp, from: hub, transferId: t.transfer_id, errorInformation, contentType: notify.answerContentType(c.fulfil && c.fulfil.version), trace: c.trace })
    }
    // The payee's own error goes to the payer as the payee sent it.
    const toPayer = fromPayee ? notify.errorForPayer(c.fulfil, errorInformation) : { errorInformation, signed: {} }
    const contentType = fromPayee && c.fulfil ? c.fulfil.headers['content-type'] : undefined
    finish(t, notify.transferError(config, { to: t.payer_fsp, from: fromPayee ? t.payee_fsp : hub, transferId: t.transfer_id, ...toPayer, contentType, trace: c.trace }), toPayee)
  }

  const actions = { reserve, commit, abort }
  for (const c of commands) {
    const t = transfers.get(c.transferId)
    if (t) actions[c.action](t, c)
  }
  const accountValues = new Map([...touched].map((id) => [id, accounts.get(id).value]))
  return { transferChanges, stateChanges, positionChanges, accountValues, outgoing }
}

module.exports = { applyPositionCommands }
