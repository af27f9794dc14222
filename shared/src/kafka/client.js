'use strict'

// The only module that requires kafkajs (STYLE.md). Everything Kafka-shaped
// that the rest of the code needs is re-exported from here, so swapping or
// upgrading the client library touches one file.

const { Kafka, logLevel } = require('kafkajs')
const { version: KAFKAJS_VERSION } = require('kafkajs/package.json')
const RequestQueue = require('kafkajs/src/network/requestQueue')
const createKafkajsSocketFactory = require('kafkajs/src/network/socketFactory')
const kafkajsRequests = require('kafkajs/src/protocol/requests')
const { useProduceEncoding } = require('./produce-encoding')
const { javaCompatiblePartitioner } = require('./partitioner')
const { tlsOptions } = require('../tls-files')

const toPinoLevel = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug'
}

// kafkajs's own socket factory, but for unref(). kafkajs ends every
// Connection.disconnect() with socket.end() and socket.unref(), and Node's
// unref() on a socket it has destroyed (closed or refused by the broker) has
// no handle to unref: it adds a once('connect') listener instead, which never
// fires. While a broker is away, kafkajs disconnects the broker it could not
// reach after each failed attempt (BrokerPool.connectBroker →
// Broker.disconnect → ConnectionPool.destroy), and the pool's fetch
// connection keeps the socket the broker closed when it went away: one more
// listener per attempt, for as long as the outage lasts and the consumer
// stays in its group (one busy sending its output and committing offsets
// does; an idle one crashes and is built anew). The outage test saw
// MaxListenersExceededWarning, 11 'connect' listeners on one socket, 20 s into
// a broker outage. A destroyed socket has nothing to unref, so its unref()
// does nothing here.
const kafkajsSocketFactory = createKafkajsSocketFactory()

/** @type {import('kafkajs').ISocketFactory} */
function socketFactory (opts) {
  const socket = kafkajsSocketFactory(opts)
  const unref = socket.unref
  socket.unref = function () { return this.destroyed ? this : unref.call(this) }
  return socket
}

// kafkajs 2.2.4's RequestQueue reschedules its check for requests held back
// by throttling after every response, even when none is held back: with
// nothing pending and no throttle, the delay it computes is negative (Node
// makes it 1 ms), and each check schedules the next. So every connection that
// has had a response runs a 1 ms timer for as long as it is open, doing
// nothing (kafkajs issues #1556, #1604, #1704; on Node >= 23 it also prints
// TimeoutNegativeWarning, #1751). Here the check is scheduled only while
// requests are pending, as the upstream fixes proposed: after the throttle
// ends, or every 10 ms while the in-flight limit holds them back (a response
// or a timeout checks them sooner). Every place that adds to the queue
// schedules a check, so an empty queue needs none. Tied to the version it was
// read from: another one is left alone, and a unit test says so.
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10
const requestQueuePatched = KAFKAJS_VERSION === '2.2.4'
if (requestQueuePatched) {
  RequestQueue.prototype.scheduleCheckPendingRequests = function scheduleCheckPendingRequests () {
    if (this.throttleCheckTimeoutId || this.pending.length === 0) return
    const untilUnthrottled = this.throttledUntil - Date.now()
    this.throttleCheckTimeoutId = setTimeout(() => {
      this.throttleCheckTimeoutId = null
      this.checkPendingRequests()
    }, untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL_MS)
  }
}

// Produce requests are encoded in one pass into one buffer
// (produce-encoding.js), with the bytes kafkajs 2.2.4 writes; another version
// keeps its own encoding.
const produceEncodingPatched = KAFKAJS_VERSION === '2.2.4'
if (produceEncodingPatched) useProduceEncoding(kafkajsRequests.requests.Produce)

/**
 * @param {{ brokers: readonly string[], clientId: string, logger?: import('pino').Logger,
 *   ssl?: import('tls').ConnectionOptions, sasl?: import('kafkajs').SASLOptions }} opts
 *   ssl and sasl as kafkajs takes them (kafkaSecurity builds them from the configuration)
 * @returns {import('kafkajs').Kafka}
 */
function createKafka ({ brokers, clientId, logger, ssl, sasl }) {
  return new Kafka({
    clientId,
    brokers: [...brokers],
    ...(ssl ? { ssl } : {}),
    ...(sasl ? { sasl } : {}),
    connectionTimeout: 3000,
    requestTimeout: 30000,
    retry: { initialRetryTime: 100, retries: 8 },
    socketFactory,
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
  return createKafka({ brokers: config.KAFKA_BROKERS, clientId: config.KAFKA_CLIENT_ID, logger, ...kafkaSecurity(config) })
}

/**
 * TLS and SASL for the brokers (KAFKA_TLS*, KAFKA_SASL_*): nothing when both
 * are off, as for the local stack's plaintext broker.
 * @param {import('../config').Config} config
 * @returns {{ ssl?: import('tls').ConnectionOptions, sasl?: import('kafkajs').SASLOptions }}
 */
function kafkaSecurity (config) {
  const ssl = tlsOptions(config, 'KAFKA')
  const mechanism = config.KAFKA_SASL_MECHANISM
  return {
    ...(ssl ? { ssl } : {}),
    ...(mechanism && mechanism !== 'none'
      ? { sasl: /** @type {import('kafkajs').SASLOptions} */ ({ mechanism, username: config.KAFKA_SASL_USERNAME, password: config.KAFKA_SASL_PASSWORD }) }
      : {})
  }
}

// murmur2, the same partitioner as the Java client, so keys land on the same
// partitions whichever client produced them (partitioner.js: kafkajs's
// DefaultPartitioner's partitions, computed in 32-bit arithmetic).
const defaultPartitioner = javaCompatiblePartitioner

module.exports = { createKafka, createKafkaFromConfig, kafkaSecurity, defaultPartitioner, requestQueuePatched, produceEncodingPatched }
