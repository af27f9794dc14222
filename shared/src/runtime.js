'use strict'

// The resources every Switchyard process shares (database pool, Kafka client,
// producer, admin for health and consumer lag, metrics), created from config
// and registered with the lifecycle so they close in reverse order on shutdown.

const { createDb } = require('./db')
const { guardSchema } = require('./db/schema-check')
const { createKafkaFromConfig, createProducer } = require('./kafka')
const { createHealthCheck } = require('./health')
const { createMetrics } = require('./metrics')

/**
 * @param {{ config: import('./config').Config, logger: import('pino').Logger,
 *   lifecycle: ReturnType<typeof import('./lifecycle').createLifecycle> }} opts
 */
async function createRuntime ({ config, logger, lifecycle }) {
  const db = createDb(config, { logger })
  lifecycle.add('database', () => db.destroy())
  // Before anything else starts: a database without this build's migrations
  // ends the process here, or, when the database does not answer yet, as soon
  // as it does (handlers wait for that before they consume).
  const { checked: schemaChecked } = await guardSchema({ db, database: config.DB_NAME, logger, lifecycle })
  const kafka = createKafkaFromConfig(config, logger)
  const admin = kafka.admin()
  await admin.connect()
  lifecycle.add('kafka admin', () => admin.disconnect())
  const producer = createProducer({ kafka, spacingMs: config.API_PRODUCE_SPACING_MS })
  await producer.connect()
  lifecycle.add('kafka producer', () => producer.disconnect())
  const health = createHealthCheck({ db, admin })
  // Registered after the admin client, so it stops reading lag before that closes.
  const metrics = createMetrics({ config, db, admin, logger })
  metrics.watchKafka('admin', admin)
  metrics.watchKafka('producer', producer)
  lifecycle.add('metrics', () => metrics.close())
  return { config, logger, lifecycle, db, schemaChecked, kafka, admin, producer, health, metrics, observer: metrics.observer }
}

module.exports = { createRuntime }
