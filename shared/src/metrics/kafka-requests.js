'use strict'

// Requests this process sends to Kafka, by client and API (Fetch, Produce,
// OffsetCommit, Heartbeat, …), from kafkajs's instrumentation events (one
// per answered request; timeouts and lost connections are not counted). The
// bench divides them by transfers: a round trip to the broker costs a socket
// write and a wake-up on both sides whatever it carries, so requests per
// transfer is work to count, like SQL statements and commits.

const { Counter } = require('prom-client')

/**
 * A kafkajs consumer, producer or admin client: what instrumentation needs.
 * @typedef {{ events: { REQUEST: string }, on: (event: string, listener: (e: { payload: { apiName: string } }) => void) => unknown }} InstrumentedClient
 */

/** @param {import('prom-client').Registry} registry */
function createKafkaRequestMetrics (registry) {
  const requests = new Counter({
    name: 'switchyard_kafka_requests_total',
    help: 'Requests to Kafka that the broker answered, by client (producer, admin, or the consumer\'s stage) and API.',
    labelNames: ['client', 'api'],
    registers: [registry]
  })
  return {
    /**
     * Counts the requests `kafkaClient` sends from now on, as `name`.
     * @param {string} name @param {InstrumentedClient} kafkaClient
     */
    watch (name, kafkaClient) {
      kafkaClient.on(kafkaClient.events.REQUEST, (e) => requests.inc({ client: name, api: e.payload.apiName }))
    }
  }
}

module.exports = { createKafkaRequestMetrics }
