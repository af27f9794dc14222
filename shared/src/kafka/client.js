'use strict'

// The only module that requires kafkajs (STYLE.md). Everything Kafka-shaped
// that the rest of the code needs is re-exported from here, so swapping or
// upgrading the client library touches one file.

const { Kafka, logLevel, Partitioners } = require('kafkajs')

const toPinoLevel = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug'
}

/**
 * @param {{ brokers: readonly string[], clientId: string, logger?: import('pino').Logger }} opts
 * @returns {import('kafkajs').Kafka}
 */
function createKafka ({ brokers, clientId, logger }) {
  return new Kafka({
    clientId,
    brokers: [...brokers],
    connectionTimeout: 3000,
    requestTimeout: 30000,
    retry: { initialRetryTime: 100, retries: 8 },
    // kafkajs logs rebalances and reconnects at info; those are useful at debug.
    logLevel: logger ? logLevel.INFO : logLevel.NOTHING,
    logCreator: () => ({ namespace, level, log }) => {
      if (!logger) return
      const { message, ...extra } = log
      const pinoLevel = toPinoLevel[level] || 'debug'
      logger[pinoLevel === 'info' ? 'debug' : pinoLevel]({ namespace, ...extra }, message)
    }
  })
}

/**
 * @param {import('pino').Logger} [logger]
 * @param {import('../config').Config} config
 */
function createKafkaFromConfig (config, logger) {
  return createKafka({ brokers: config.KAFKA_BROKERS, clientId: config.KAFKA_CLIENT_ID, logger })
}

// murmur2, the same partitioner as the Java client, so keys land on the same
// partitions whichever client produced them.
const defaultPartitioner = Partitioners.DefaultPartitioner

module.exports = { createKafka, createKafkaFromConfig, defaultPartitioner }
