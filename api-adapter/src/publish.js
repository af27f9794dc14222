'use strict'

// Publishing a command is the api-adapter's one side effect. The participant
// gets its 202/200 only once the broker has the message on all in-sync
// replicas (the producer sends with acks=all); if the broker cannot take it,
// the participant gets 503 2003, which tells it to retry, and nothing is lost
// silently.

const { toWire } = require('@switchyard/shared/kafka')
const { createFspiopError } = require('@switchyard/shared/errors')
const { currentTraceHeaders, tagTransfer } = require('@switchyard/shared/tracing')

/**
 * @param {ReturnType<typeof import('@switchyard/shared/kafka').createProducer> | undefined} producer
 * @returns {(message: import('../../shared/src/kafka/envelope').OutgoingMessage) => Promise<void>}
 */
function createPublisher (producer) {
  return async function publish (message) {
    if (!producer) throw createFspiopError('SERVICE_CURRENTLY_UNAVAILABLE', 'no message broker is configured')
    // The command continues the request's trace (whose parent is the
    // participant's own traceparent, if it sent one); the active span (the
    // route handler's, under @fastify/otel) is tagged with the transfer so
    // traces a participant did not continue can still be joined to it (the
    // gap report joins a request span through such a descendant).
    tagTransfer(message.key)
    const wire = toWire({ ...message, headers: { ...message.headers, ...currentTraceHeaders() } })
    try {
      await producer.sendSoon([wire])
    } catch (err) {
      throw createFspiopError('SERVICE_CURRENTLY_UNAVAILABLE', 'the message broker did not accept the request', { cause: err })
    }
  }
}

module.exports = { createPublisher }
