'use strict'

// Builders for the callbacks the ledger handlers ask the notification handler
// to deliver (the `notification` topic in docs/transfers.md). Pure functions.

const { topicName } = require('@switchyard/shared/kafka')
const { toApiState } = require('./states')

const ENDPOINT = Object.freeze({
  POST: 'FSPIOP_CALLBACK_URL_TRANSFER_POST',
  PUT: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT',
  ERROR: 'FSPIOP_CALLBACK_URL_TRANSFER_ERROR'
})

const DEFAULT_CONTENT_TYPE = 'application/vnd.interoperability.transfers+json;version=1.1'

/**
 * Callback headers: FSPIOP-Source is the original sender, or the hub for
 * messages the hub makes; the content type keeps the version the transfer
 * was started with when known.
 * @param {{ from: string, to: string, contentType?: string }} p
 */
function callbackHeaders ({ from, to, contentType }) {
  return {
    'content-type': contentType || DEFAULT_CONTENT_TYPE,
    date: new Date().toUTCString(),
    'fspiop-source': from,
    'fspiop-destination': to
  }
}

/**
 * @param {import('@switchyard/shared/config').Config} config
 * @param {{ to: string, transferId: string, endpointType: string, method: string, path: string,
 *   headers: Record<string, string>, body: any, trace?: Record<string, string> }} n
 * @returns {import('../../../shared/src/kafka/envelope').OutgoingMessage}
 */
function notification (config, { trace, ...n }) {
  return { topic: topicName(config, 'notification'), key: n.to, value: n, headers: trace || {} }
}

/**
 * The payer's POST /transfers, forwarded to the payee with the payer's
 * original headers (signature included) and body.
 * @param {import('@switchyard/shared/config').Config} config
 * @param {{ transferId: string, payee: string, prepare: { headers: Record<string, string>, payload: any }, trace?: Record<string, string> }} p
 */
function forwardPrepare (config, { transferId, payee, prepare, trace }) {
  const { accept: _accept, ...headers } = prepare.headers
  return notification(config, {
    to: payee, transferId, endpointType: ENDPOINT.POST, method: 'POST', path: '/transfers', headers, body: prepare.payload, trace
  })
}

/**
 * PUT /transfers/{id} (or PATCH) with a transfer's state.
 * @param {import('@switchyard/shared/config').Config} config
 * @param {{ to: string, from: string, transferId: string, body: any, method?: 'PUT' | 'PATCH', contentType?: string, trace?: Record<string, string> }} p
 */
function transferState (config, { to, from, transferId, body, method = 'PUT', contentType, trace }) {
  return notification(config, {
    to, transferId, endpointType: ENDPOINT.PUT, method, path: `/transfers/${transferId}`, headers: callbackHeaders({ from, to, contentType }), body, trace
  })
}

/**
 * PUT /transfers/{id}/error.
 * @param {import('@switchyard/shared/config').Config} config
 * @param {{ to: string, from: string, transferId: string, errorInformation: { errorCode: string, errorDescription: string, extensionList?: any },
 *   contentType?: string, trace?: Record<string, string> }} p
 */
function transferError (config, { to, from, transferId, errorInformation, contentType, trace }) {
  return notification(config, {
    to,
    transferId,
    endpointType: ENDPOINT.ERROR,
    method: 'PUT',
    path: `/transfers/${transferId}/error`,
    headers: callbackHeaders({ from, to, contentType }),
    body: { errorInformation },
    trace
  })
}

/**
 * The body of PUT /transfers/{id} for a stored transfer.
 * @param {{ state: string, fulfilment?: string | null, completed_at?: Date | null }} t
 */
function stateBody (t) {
  const transferState = toApiState(t.state)
  /** @type {Record<string, string>} */
  const body = { transferState }
  if (t.completed_at) body.completedTimestamp = new Date(t.completed_at).toISOString()
  if (transferState === 'COMMITTED' && t.fulfilment) body.fulfilment = t.fulfilment
  return body
}

/**
 * What a participant hears about a stored transfer: its state, or its
 * error when the transfer was aborted with one.
 * @param {import('@switchyard/shared/config').Config} config
 * @param {{ to: string, from: string, transfer: { transfer_id: string, state: string, error_code?: string | null,
 *   error_description?: string | null, fulfilment?: string | null, completed_at?: Date | null }, trace?: Record<string, string> }} p
 */
function currentState (config, { to, from, transfer, trace }) {
  if (toApiState(transfer.state) === 'ABORTED' && transfer.error_code) {
    return transferError(config, {
      to, from, transferId: transfer.transfer_id, trace, errorInformation: { errorCode: transfer.error_code, errorDescription: transfer.error_description || '' }
    })
  }
  return transferState(config, { to, from, transferId: transfer.transfer_id, body: stateBody(transfer), trace })
}

module.exports = { forwardPrepare, transferState, transferError, stateBody, currentState }
