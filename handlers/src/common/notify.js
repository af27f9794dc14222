'use strict'

// Builders for the callbacks the ledger handlers ask the notification handler
// to deliver (the `notification` topic in docs/transfers.md). Pure functions.
// A participant's body that is passed on goes as the text it was sent in when
// the command has it (`raw`: the sender's spacing and escapes, which its
// FSPIOP-Signature covers), as a string `body` the notification handler sends
// byte for byte; otherwise as the parsed payload, which JSON.stringify gives
// back exactly as sent.

const { topicName } = require('@switchyard/shared/kafka')
const { toApiState } = require('./states')

const ENDPOINT = Object.freeze({
  POST: 'FSPIOP_CALLBACK_URL_TRANSFER_POST',
  PUT: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT',
  ERROR: 'FSPIOP_CALLBACK_URL_TRANSFER_ERROR'
})

const MEDIA_TYPE = 'application/vnd.interoperability.transfers+json'
// The version of a callback that answers no request of its recipient (an
// expiry, a PATCH), and of one answering a command that names no version.
const DEFAULT_CONTENT_TYPE = `${MEDIA_TYPE};version=1.1`
// What a command's `version` must look like to be written into a header.
const VERSION = /^\d{1,3}\.\d{1,3}$/

/**
 * The Content-Type of a callback the hub writes in answer to a participant's
 * request (its rejection, a GET's or a resend's state): the version
 * negotiated from that request's Accept (or, without one, its Content-Type),
 * which its command carries as `version` when it is not 1.1
 * (api-adapter/src/commands.js).
 * @param {string | undefined} version
 */
const answerContentType = (version) => typeof version === 'string' && VERSION.test(version) ? `${MEDIA_TYPE};version=${version}` : DEFAULT_CONTENT_TYPE

/**
 * Callback headers: FSPIOP-Source is the original sender, or the hub for
 * messages the hub makes; the content type is the sender's when its body is
 * passed on, the version negotiated with the request a hub-made callback
 * answers (answerContentType), else 1.1.
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
 * @typedef {{ headers: Record<string, string>, payload: any, raw?: string, version?: string }} SentRequest
 *   a participant's request as a command carries it; raw: its body's text, when that is not JSON.stringify(payload);
 *   version: the version to answer it in, when not 1.1
 */

/**
 * The body of a participant's request, to pass on unchanged.
 * @param {SentRequest} sent
 * @returns {any} the text as sent, or the payload when JSON gives that back as sent
 */
const sentBody = (sent) => typeof sent.raw === 'string' ? sent.raw : sent.payload

/**
 * @param {import('@switchyard/shared/config').Config} config
 * @param {{ to: string, transferId: string, endpointType: string, method: string, path: string,
 *   headers: Record<string, string>, body: any, trace?: Record<string, string> }} n
 *   body: a string is sent as it is, anything else as JSON
 * @returns {import('../../../shared/src/kafka/envelope').OutgoingMessage}
 */
function notification (config, { trace, ...n }) {
  return { topic: topicName(config, 'notification'), key: n.to, value: n, headers: trace || {} }
}

/**
 * The payer's POST /transfers, forwarded to the payee with the payer's
 * original headers (signature, Date and Accept included) and body.
 * FSPIOP-Destination is optional for the payer but always set on a callback:
 * the payee's, when the payer left it out (when present, the prepare handler
 * checked it is).
 * @param {import('@switchyard/shared/config').Config} config
 * @param {{ transferId: string, payee: string, prepare: SentRequest, trace?: Record<string, string> }} p
 */
function forwardPrepare (config, { transferId, payee, prepare, trace }) {
  const sent = prepare.headers
  const headers = sent['fspiop-destination'] ? sent : { ...sent, 'fspiop-destination': payee }
  return notification(config, {
    to: payee, transferId, endpointType: ENDPOINT.POST, method: 'POST', path: '/transfers', headers, body: sentBody(prepare), trace
  })
}

/** The headers of a participant's request that travel with its body when the hub passes it on unchanged. */
const SIGNATURE_HEADERS = ['fspiop-signature', 'fspiop-encryption']

/**
 * The sender's signature headers, for a callback that passes its body on
 * unchanged. A signature carries the sender's Date in its protected header,
 * and a validator compares it with the request's: a signed body goes on with
 * the sender's Date, as a Mojaloop hub sends it.
 * @param {Record<string, string> | undefined} headers
 * @returns {Record<string, string>}
 */
function signatureHeaders (headers) {
  /** @type {Record<string, string>} */
  const out = {}
  for (const name of SIGNATURE_HEADERS) if (headers && typeof headers[name] === 'string') out[name] = headers[name]
  if (out['fspiop-signature'] && headers && typeof headers.date === 'string') out.date = headers.date
  return out
}

/**
 * PUT /transfers/{id} (or PATCH) with a transfer's state.
 * @param {import('@switchyard/shared/config').Config} config
 * @param {{ to: string, from: string, transferId: string, body: any, method?: 'PUT' | 'PATCH', contentType?: string,
 *   signed?: Record<string, string>, trace?: Record<string, string> }} p
 *   body: a string is sent as it is; signed: the sender's signature headers, when `body` is the sender's own, unchanged
 */
function transferState (config, { to, from, transferId, body, method = 'PUT', contentType, signed, trace }) {
  return notification(config, {
    to, transferId, endpointType: ENDPOINT.PUT, method, path: `/transfers/${transferId}`, headers: { ...callbackHeaders({ from, to, contentType }), ...signed }, body, trace
  })
}

/**
 * The payer's PUT /transfers/{id} on commit: the payee's own body, passed on
 * as Mojaloop does (its completedTimestamp as sent, its extensionList), with
 * its signature. A payee that answered RESERVED gets its PATCH; the payer
 * hears COMMITTED, so that body is changed and goes unsigned.
 * @param {SentRequest | undefined} fulfil the payee's PUT
 * @param {Record<string, string>} stored stateBody() of the committed transfer, when there is no fulfil to pass on
 * @returns {{ body: Record<string, any> | string, signed: Record<string, string> }} body: the payee's text when passed on unchanged
 */
function committedForPayer (fulfil, stored) {
  const payload = fulfil && fulfil.payload
  if (!payload || typeof payload !== 'object' || typeof payload.fulfilment !== 'string') return { body: stored, signed: {} }
  if (payload.transferState === 'COMMITTED') return { body: sentBody(fulfil), signed: signatureHeaders(fulfil.headers) }
  return { body: { ...payload, transferState: 'COMMITTED' }, signed: {} }
}

/**
 * The payer's PUT /transfers/{id}/error after the payee's error: the payee's
 * own errorInformation (its description whole, its extensionList) with its
 * signature, as Mojaloop passes it on.
 * @param {SentRequest | undefined} fulfil the payee's PUT …/error
 * @param {{ errorCode: string, errorDescription: string }} stored the stored error, when there is none to pass on
 * @returns {{ errorInformation: { errorCode: string, errorDescription: string, extensionList?: any }, raw?: string, signed: Record<string, string> }}
 *   raw: the payee's text, when JSON would not give it back as sent
 */
function errorForPayer (fulfil, stored) {
  const info = fulfil && fulfil.payload && fulfil.payload.errorInformation
  if (!info || typeof info !== 'object') return { errorInformation: stored, signed: {} }
  return { errorInformation: info, raw: typeof fulfil.raw === 'string' ? fulfil.raw : undefined, signed: signatureHeaders(fulfil.headers) }
}

/**
 * PUT /transfers/{id}/error.
 * @param {import('@switchyard/shared/config').Config} config
 * @param {{ to: string, from: string, transferId: string, errorInformation: { errorCode: string, errorDescription: string, extensionList?: any },
 *   raw?: string, contentType?: string, signed?: Record<string, string>, trace?: Record<string, string> }} p
 *   raw: the sender's body text, sent instead of { errorInformation } (which it is) when JSON would not give it back as sent;
 *   signed: the sender's signature headers, when the error is the sender's own body, unchanged
 */
function transferError (config, { to, from, transferId, errorInformation, raw, contentType, signed, trace }) {
  return notification(config, {
    to,
    transferId,
    endpointType: ENDPOINT.ERROR,
    method: 'PUT',
    path: `/transfers/${transferId}/error`,
    headers: { ...callbackHeaders({ from, to, contentType }), ...signed },
    body: raw === undefined ? { errorInformation } : raw,
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
 *   error_description?: string | null, fulfilment?: string | null, completed_at?: Date | null }, contentType?: string,
 *   trace?: Record<string, string> }} p
 */
function currentState (config, { to, from, transfer, contentType, trace }) {
  if (toApiState(transfer.state) === 'ABORTED' && transfer.error_code) {
    return transferError(config, {
      to, from, transferId: transfer.transfer_id, contentType, trace, errorInformation: { errorCode: transfer.error_code, errorDescription: transfer.error_description || '' }
    })
  }
  return transferState(config, { to, from, transferId: transfer.transfer_id, body: stateBody(transfer), contentType, trace })
}

module.exports = { forwardPrepare, transferState, transferError, stateBody, currentState, committedForPayer, errorForPayer, answerContentType }
