'use strict'

// The resources every Switchyard process shares (database pool, Kafka client,
// producer, admin for health), created from config and registered with the
// lifecycle so they close in reverse order on shutdown.

const { createDb } = require('./db')
const { createKafkaFromConfig, createProducer } = require('./kafka')
const { createHealthCheck } = require('./health')

/**
 * @param {{ config: import('./config').Config, logger: import('pino').Logger,
 *   lifecycle: ReturnType<typeof import('./lifecycle').createLifecycle> }} opts
 */
async function createRuntime ({ config, logger, lifecycle }) {
  const db = createDb(config)
  lifecycle.add('database', () => db.destroy())
  const kafka = createKafkaFromConfig(config, logger)
  const admin = kafka.admin()
  await admin.connect()
  lifecycle.add('kafka admin', () => admin.disconnect())
  const producer = createProducer({ kafka, logger })
  await producer.connect()
  lifecycle.add('kafka producer', () => producer.disconnect())
  const health = createHealthCheck({ db, admin })
  return { config, logger, lifecycle, db, kafka, admin, producer, health }
}

module.exports = { createRuntime }
