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
 * A transfer command: prepares go to the prepare topic; fulfils, errors and
 * GETs to the fulfil topic, so that per transfer they are handled in the
 * order they arrived. Keyed by transferId (shared/src/kafka/topics.js).
 *
 * @param {import('@switchyard/shared/config').Config} config
 * @param {CommandType} type
 * @param {{ transferId: string, headers: Record<string, string | string[] | undefined>, payload?: object }} request
 * @returns {import('../../shared/src/kafka/envelope').OutgoingMessage}
 */
function toTransferCommand (config, type, { transferId, headers, payload }) {
  const value = { type, transferId, headers: pickHeaders(headers, FORWARDED_HEADERS) }
  return {
    topic: topicName(config, type === 'prepare' ? 'prepare' : 'fulfil'),
    key: transferId,
    value: payload === undefined ? value : { ...value, payload },
    headers: pickHeaders(headers, TRACE_HEADERS)
  }
}

module.exports = { FORWARDED_HEADERS, pickHeaders, toTransferCommand }
