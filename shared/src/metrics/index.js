'use strict'

// Prometheus metrics for one process: a registry of its own (never
// prom-client's global one, so tests and a process running API and handlers
// together each get exactly their own series) and the observers that feed it.
// Nothing here is called from business logic: the consumer runner reports
// chunks to `observer`, the notification dispatcher reports attempts to
// `callbacks`, the API's onResponse hook feeds `http`, Kafka clients are
// watched for their requests, and gauges (pool, lag) are read when
// Prometheus scrapes.

const { Registry, collectDefaultMetrics } = require('prom-client')
const { createStageMetrics } = require('./stage-metrics')
const { createConsumerLag } = require('./consumer-lag')
const { createCallbackMetrics } = require('./callbacks')
const { createDbPoolGauge } = require('./db-pool')
const { createHttpMetrics } = require('./http')
const { createSharedTransactionMetrics } = require('./shared-transactions')
const { createKafkaRequestMetrics } = require('./kafka-requests')

/**
 * @param {{ config: import('../config').Config, db: import('knex').Knex, admin: import('kafkajs').Admin,
 *   logger: import('pino').Logger }} deps
 */
function createMetrics ({ config, db, admin, logger }) {
  const registry = new Registry()
  // Event loop lag, CPU, memory, heap spaces, GC, handles, file descriptors.
  collectDefaultMetrics({ register: registry, prefix: 'switchyard_' })
  createDbPoolGauge(registry, db)
  const lag = createConsumerLag(registry, { admin, refreshMs: config.METRICS_LAG_REFRESH_MS, logger })
  const kafkaRequests = createKafkaRequestMetrics(registry)
  return {
    registry,
    /** For the consumer runner (RunnerOptions.observer). */
    observer: createStageMetrics(registry),
    /** For the handler process's shared transactions (createSharedTransactions' onGroup). */
    sharedTransactions: createSharedTransactionMetrics(registry),
    /** For the notification dispatcher. */
    callbacks: createCallbackMetrics(registry, { timeoutMs: config.CALLBACK_TIMEOUT_MS }),
    /** For the api-adapter's fastify app. */
    http: createHttpMetrics(registry),
    /**
     * Adds a consumer group's lag on `topics` to /metrics; call once its consumer runs.
     * @type {(groupId: string, topics: string[]) => void}
     */
    watchGroup: lag.watchGroup,
    /**
     * Counts a Kafka client's requests under `name` (the admin client, the producer, each stage's consumer).
     * @type {(name: string, client: import('./kafka-requests').InstrumentedClient) => void}
     */
    watchKafka: kafkaRequests.watch,
    /** The text Prometheus scrapes, with its content type. */
    async scrape () {
      return { contentType: registry.contentType, body: await registry.metrics() }
    },
    /** Stops reading lag from the broker (the admin client closes after this). */
    close () {
      lag.close()
    }
  }
}

/** @typedef {ReturnType<typeof createMetrics>} Metrics */

module.exports = { createMetrics, NO_CALLBACK_METRICS: require('./callbacks').NO_CALLBACK_METRICS }
