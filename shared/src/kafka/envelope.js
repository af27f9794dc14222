'use strict'

// How a message looks in code and on the wire. In code: { topic, key, value,
// headers } with `value` a plain object. On the wire: a JSON value, the key as
// a string, and string headers that carry W3C trace context (`traceparent`,
// `tracestate`) across every hop (DESIGN.md rule 9).

const TRACE_HEADERS = ['traceparent', 'tracestate']

/**
 * @typedef {{ topic: string, key: string, value: any, headers?: Record<string, string> }} OutgoingMessage
 * @typedef {{ topic: string, key: string, value: string, headers: Record<string, string> }} WireMessage
 * @typedef {{ topic: string, partition: number, offset: bigint, key: string | null, value: any,
 *   headers: Record<string, string>, timestamp: number, raw: string | null, parseError?: Error, cluster?: string }} IncomingMessage
 *   cluster: the Kafka cluster's id, which with topic, partition and offset names the record for good
 *   (offsets start again at 0 on a new cluster)
 */

/**
 * @param {OutgoingMessage} msg
 * @returns {WireMessage}
 */
function toWire ({ topic, key, value, headers = {} }) {
  if (!topic) throw new TypeError('outgoing message without topic')
  if (key === undefined || key === null) throw new TypeError(`outgoing message to ${topic} without key`)
  /** @type {Record<string, string>} */
  const h = { 'content-type': 'application/json' }
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && v !== null) h[k] = String(v)
  return { topic, key: String(key), value: JSON.stringify(value), headers: h }
}

/**
 * A consumed kafkajs message in code form. A value that is not JSON is kept
 * as `raw` with `parseError` set, so the runner can dead-letter it instead of
 * crashing the partition.
 *
 * @param {string} topic
 * @param {number} partition
 * @param {{ key: Buffer | null, value: Buffer | null, headers?: Record<string, any>, offset: string, timestamp: string }} message
 * @param {string} [cluster] the cluster's id
 * @returns {IncomingMessage}
 */
function fromKafka (topic, partition, message, cluster) {
  /** @type {Record<string, string>} */
  const headers = {}
  for (const [k, v] of Object.entries(message.headers || {})) {
    if (v !== undefined && v !== null) headers[k] = Array.isArray(v) ? String(v[v.length - 1]) : v.toString()
  }
  const raw = message.value === null ? null : message.value.toString('utf8')
  /** @type {IncomingMessage} */
  const incoming = {
    topic,
    partition,
    offset: BigInt(message.offset),
    key: message.key === null ? null : message.key.toString('utf8'),
    value: undefined,
    headers,
    timestamp: Number(message.timestamp),
    raw,
    ...(cluster ? { cluster } : {})
  }
  try {
    incoming.value = raw === null ? null : JSON.parse(raw)
  } catch (err) {
    incoming.parseError = err
  }
  return incoming
}

/**
 * The trace headers of an incoming message, to pass on to what it causes.
 * @param {{ headers: Record<string, string> }} incoming
 */
function traceHeaders (incoming) {
  /** @type {Record<string, string>} */
  const out = {}
  for (const name of TRACE_HEADERS) if (incoming.headers[name]) out[name] = incoming.headers[name]
  return out
}

module.exports = { toWire, fromKafka, traceHeaders, TRACE_HEADERS }
