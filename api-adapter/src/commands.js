'use strict'

// HTTP request → Kafka message, in the formats of docs/transfers.md. Pure:
// the routes publish what these return.

const { topicName, TRACE_HEADERS } = require('@switchyard/shared/kafka')

/**
 * The headers a participant sent that the handlers need, lower-cased: the
 * FSPIOP ones (so the payer's original headers, signature included, can be
 * forwarded to the payee unchanged) and the W3C trace context.
 */
const FORWARDED_HEADERS = Object.freeze([
  'content-type', 'accept', 'date',
  'fspiop-source', 'fspiop-destination', 'fspiop-signature', 'fspiop-encryption', 'fspiop-uri', 'fspiop-http-method',
  ...TRACE_HEADERS
])

/**
 * @param {Record<string, string | string[] | undefined>} headers node's request headers (keys already lower case)
 * @param {readonly string[]} names
 * @returns {Record<string, string>} the named headers that are present
 */
function pickHeaders (headers, names) {
  /** @type {Record<string, string>} */
  const picked = {}
  for (const name of names) {
    const value = headers[name]
    if (value !== undefined) picked[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return picked
}

/** @typedef {'prepare' | 'fulfil' | 'error' | 'get'} CommandType */

/**
 * The version a command leaves unsaid: the handlers answer in it when the
 * command has no `version` (handlers/src/common/notify.js answerContentType).
 * Most participants ask for it, so most commands carry no version at all.
 */
const UNSTATED_VERSION = '1.1'

/**
 * @typedef {{ type: CommandType, transferId: string, headers: Record<string, string>, payload?: object, raw?: string,
 *   version?: string }} TransferCommandValue
 *   raw: the body's text, when it is not JSON.stringify(payload);
 *   version: the version to answer the sender in, when it is not UNSTATED_VERSION
 */

/**
 * A transfer command: prepares go to the prepare topic; fulfils, errors and
 * GETs to the fulfil topic, so that per transfer they are handled in the
 * order they arrived. Keyed by transferId (shared/src/kafka/topics.js).
 *
 * The body goes parsed (`payload`, what the handlers read and hash) and, when
 * the participant's text differs from what JSON.stringify makes of it
 * (spacing, escapes such as "\u00e9" or "\/", key order), as that text too
 * (`raw`): a body the hub passes on must reach the other participant byte for
 * byte, or the FSPIOP-Signature that goes with it no longer verifies. A
 * compact body, the usual one, costs no extra byte on Kafka. So does the
 * version the hub answers the sender in (`version`), negotiated from the
 * request's headers, when it is 1.1.
 *
 * @param {import('@switchyard/shared/config').Config} config
 * @param {CommandType} type
 * @param {{ transferId: string, headers: Record<string, string | string[] | undefined>, payload?: object, text?: string,
 *   version?: string }} request
 *   text: the body as sent (fspiop-headers.js bodyText); version: the version to answer in (fspiop-headers.js answerVersion)
 * @returns {import('../../shared/src/kafka/envelope').OutgoingMessage}
 */
function toTransferCommand (config, type, { transferId, headers, payload, text, version }) {
  /** @type {TransferCommandValue} */
  const value = { type, transferId, headers: pickHeaders(headers, FORWARDED_HEADERS) }
  if (payload !== undefined) {
    value.payload = payload
    if (text !== undefined && text !== JSON.stringify(payload)) value.raw = text
  }
  if (version !== undefined && version !== UNSTATED_VERSION) value.version = version
  return {
    topic: topicName(config, type === 'prepare' ? 'prepare' : 'fulfil'),
    key: transferId,
    value,
    headers: pickHeaders(headers, TRACE_HEADERS)
  }
}

module.exports = { FORWARDED_HEADERS, pickHeaders, toTransferCommand }
