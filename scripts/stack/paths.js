'use strict'

const path = require('node:path')

/**
 * @typedef {{ root: string, stack: string, cache: string, kafka: string, mariadb: string }} StackPaths
 */

const root = path.resolve(__dirname, '..', '..')

/** @param {import('../../shared/src/config').Config} config @returns {StackPaths} */
function stackPaths (config) {
  const stack = path.resolve(root, config.STACK_DIR)
  return {
    root,
    stack,
    cache: path.join(stack, 'cache'),
    kafka: path.join(stack, 'kafka'),
    mariadb: path.join(stack, 'mariadb')
  }
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1'])

/**
 * The local stack runs a service only for loopback addresses, and never
 * when STACK=off: an external Kafka or MySQL is left alone. Nor does it run
 * a broker the configuration reaches over TLS or SASL (its own broker's
 * secured listener, tls.js, is reached so once the stack is up).
 * @param {import('../../shared/src/config').Config} config
 */
function localServices (config) {
  const auto = config.STACK === 'auto'
  const [broker, ...others] = config.KAFKA_BROKERS
  const kafkaHost = broker ? broker.slice(0, broker.lastIndexOf(':')) : ''
  const kafkaPort = broker ? Number(broker.slice(broker.lastIndexOf(':') + 1)) : NaN
  return {
    // A broker reached over TLS or SASL is not the stack's plaintext one.
    kafka: auto && !config.KAFKA_TLS && config.KAFKA_SASL_MECHANISM === 'none' && others.length === 0 && LOOPBACK.has(kafkaHost) && Number.isInteger(kafkaPort) ? { port: kafkaPort } : undefined,
    mariadb: auto && LOOPBACK.has(config.DB_HOST) ? { port: config.DB_PORT } : undefined
  }
}

module.exports = { stackPaths, localServices, root }
