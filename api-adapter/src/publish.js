'use strict'

// Publishing a command is the api-adapter's one side effect. The participant
// gets its 202/200 only once the broker has the message on all in-sync
// replicas (the producer sends with acks=all); if the broker cannot take it,
// the participant gets 503 2003, which tells it to retry, and nothing is lost
// silently.

const { toWire } = require('@switchyard/shared/kafka')
const { createFspiopError } = require('@switchyard/shared/errors')
const { injectSpan } = require('@switchyard/shared/tracing')
const { requestSpan } = require('./plugins/trace-requests')

/**
 * @param {ReturnType<typeof import('@switchyard/shared/kafka').createProducer> | undefined} producer
 * @returns {(message: import('../../shared/src/kafka/envelope').OutgoingMessage, request: import('fastify').FastifyRequest) => Promise<void>}
 */
function createPublisher (producer) {
  return async function publish (message, request) {
    if (!producer) throw createFspiopError('SERVICE_CURRENTLY_UNAVAILABLE', 'no message broker is configured')
    // The command continues the request's trace (whose parent is the
    // participant's own traceparent, if it sent one), and the request's span
    // is tagged with the transfer, so traces a participant did not continue
    // can still be joined to it. Untraced, the participant's own trace
    // headers go on as they came.
    const span = requestSpan(request)
    if (span) span.setAttribute('switchyard.transfer_id', message.key)
    const wire = toWire({ ...message, headers: span ? { ...message.headers, ...injectSpan(span) } : message.headers })
    try {
      // Under load it may wait a few milliseconds to share a fuller request (API_PRODUCE_SPACING_MS).
      await producer.sendSoon([wire], { spaced: true })
    } catch (err) {
      throw createFspiopError('SERVICE_CURRENTLY_UNAVAILABLE', 'the message broker did not accept the request', { cause: err })
    }
  }
}

module.exports = { createPublisher }
