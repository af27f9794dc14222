'use strict'

// The notification message (docs/transfers.md) as a callback to deliver, and
// the dead-letter records this handler writes. Pure functions.

const { toDeadLetter } = require('@switchyard/shared/kafka')

const METHODS = new Set(['POST', 'PUT', 'PATCH'])
// Column sizes of the `callback` table: checked here so that a bad message is
// dead-lettered with a reason instead of failing the batch's INSERT.
const MAX = { to: 128, transferId: 36, endpointType: 64, path: 256, headers: 65535 }

/**
 * @typedef {import('../../../shared/src/kafka/envelope').IncomingMessage} IncomingMessage
 * @typedef {import('../../../shared/src/kafka/envelope').OutgoingMessage} OutgoingMessage
 * @typedef {import('../../../shared/src/kafka/envelope').WireMessage} WireMessage
 */

/**
 * A callback as the dispatcher holds it. `body` is the exact text to send.
 * `notes` are the outcomes of a callback whose row is not written yet
 * (`noted` of them went into the row; `unwrittenAt` is when a consumer's
 * transaction last took it up, in ms since the epoch); `running` is its
 * attempt in flight; `done` says it was delivered or given up. A callback
 * tried early (dispatcher.deliverEarly) has `earlyAt`, when it was handed
 * over, until its record adopts it, and `parkedFor`, when its next step is
 * due, if that step waits for the adoption. `content` is what makes two
 * callbacks one: the notification's text with its trace context (handle.js).
 * @typedef {{ callbackId: string, participant: string, transferId: string | null, endpointType: string,
 *   method: string, path: string, headers: Record<string, string>, body: string | null, attempts: number,
 *   dueInMs: number, lastError?: string | null, exhausted?: boolean, lost?: boolean,
 *   notes?: import('./dispatcher').Note[], noted?: number, unwrittenAt?: number, running?: Promise<void>,
 *   done?: boolean, earlyAt?: number, parkedFor?: number, content?: string }} Job
 */

/**
 * The callback asked for by a notification record: derived from the record,
 * so a redelivered record maps to the same row. The cluster's id is part of
 * it: offsets start again at 0 on a new cluster (a rebuilt broker), and a
 * record there must not be taken for one whose callback row is still kept
 * (CALLBACK_RETENTION_HOURS), which would skip its delivery.
 * @param {{ topic: string, partition: number, offset: bigint | string, cluster?: string }} record
 */
const callbackIdOf = (record) => `${record.topic}:${record.partition}:${record.offset}${record.cluster ? `@${record.cluster}` : ''}`

/** @param {unknown} v @param {number} max */
const isText = (v, max) => typeof v === 'string' && v.length > 0 && v.length <= max

/**
 * @param {IncomingMessage} record
 * @returns {{ job: Job, problem?: undefined } | { job?: undefined, problem: string }}
 */
function toJob (record) {
  const m = record.value
  if (!m || typeof m !== 'object' || Array.isArray(m)) return { problem: 'notification is not a JSON object' }
  if (!isText(m.to, MAX.to)) return { problem: `"to" must be a participant name of 1..${MAX.to} characters` }
  if (m.transferId != null && !isText(m.transferId, MAX.transferId)) return { problem: `"transferId" must be a string of 1..${MAX.transferId} characters` }
  if (!isText(m.endpointType, MAX.endpointType)) return { problem: '"endpointType" is missing' }
  const method = typeof m.method === 'string' ? m.method.toUpperCase() : ''
  if (!METHODS.has(method)) return { problem: `"method" must be one of ${[...METHODS].join(', ')}` }
  if (!isText(m.path, MAX.path) || !m.path.startsWith('/')) return { problem: `"path" must start with / and have at most ${MAX.path} characters` }
  if (m.headers != null && (typeof m.headers !== 'object' || Array.isArray(m.headers))) return { problem: '"headers" must be an object' }
  /** @type {Record<string, string>} */
  const headers = {}
  for (const [k, v] of Object.entries(m.headers || {})) if (v != null) headers[k.toLowerCase()] = String(v)
  if (JSON.stringify(headers).length > MAX.headers) return { problem: '"headers" are too large' }
  const body = m.body == null ? null : typeof m.body === 'string' ? m.body : JSON.stringify(m.body)
  return {
    job: {
      callbackId: callbackIdOf(record),
      participant: m.to,
      transferId: m.transferId ?? null,
      endpointType: m.endpointType,
      method,
      path: m.path,
      headers,
      body,
      attempts: 0,
      dueInMs: 0
    }
  }
}

/**
 * A message that can never become a callback: dead-lettered in the same shape
 * as the consumer runner's dead letters.
 * @param {IncomingMessage} record
 * @param {string} problem
 * @param {string} topic the dead-letter topic
 * @returns {OutgoingMessage}
 */
function invalidToDeadLetter (record, problem, topic) {
  return toDeadLetter(record, { message: `invalid notification: ${problem}`, code: 'INVALID_NOTIFICATION', attempts: 0 }, topic)
}

/**
 * A callback that was given up on. `notification` is the original message,
 * so an operator can fix the endpoint and produce it to the notification
 * topic again.
 * @param {Job} job
 * @param {string} topic the dead-letter topic
 * @returns {OutgoingMessage}
 */
function failedToDeadLetter (job, topic) {
  let body = job.body
  try {
    const parsed = body === null ? null : JSON.parse(body)
    // Parsed for the operator to read, unless JSON would not give the text
    // back as it is (a participant's own spacing or escapes, which its
    // signature covers): that stays a string, which a notification produced
    // again sends byte for byte.
    if (body === null || JSON.stringify(parsed) === body) body = parsed
  } catch {}
  const message = job.lastError || 'delivery failed'
  return {
    topic,
    key: job.participant,
    value: {
      callbackId: job.callbackId,
      notification: { to: job.participant, transferId: job.transferId, endpointType: job.endpointType, method: job.method, path: job.path, headers: job.headers, body },
      error: { message, code: 'CALLBACK_FAILED', attempts: job.attempts }
    },
    headers: { 'x-error': message.slice(0, 500) }
  }
}

module.exports = { callbackIdOf, toJob, invalidToDeadLetter, failedToDeadLetter }
