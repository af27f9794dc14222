'use strict'

// What a process that could not start says before it exits 1: one fatal JSON
// line, like every other line it logs, whose message names the setting to
// look at when the cause is one an operator can fix — Kafka refusing the SASL
// credentials, a server certificate the configured CA does not sign — rather
// than a bare stack on stderr. A configuration error (loadConfig) already
// lists every problem; it is printed as it is, for no logger can be made
// from a configuration that does not load.

const { loadConfig, ConfigError } = require('./config')
const { createLogger } = require('./logger')

// Node's (OpenSSL's) codes for a certificate the client did not accept.
const CERTIFICATE_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_GET_ISSUER_CERT', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID', 'CERT_UNTRUSTED', 'CERT_SIGNATURE_FAILURE'
])

// OpenSSL's codes for the server's alert that it did not accept this client's certificate.
const CLIENT_CERTIFICATE_ALERT = /^ERR_SSL_.*ALERT_(BAD_CERTIFICATE|CERTIFICATE_REQUIRED|CERTIFICATE_UNKNOWN|UNKNOWN_CA|CERTIFICATE_EXPIRED|CERTIFICATE_REVOKED|UNSUPPORTED_CERTIFICATE)$/

/** The error and its causes, outermost first. @param {any} err */
function * causes (err) {
  for (let e = err, depth = 0; e && depth < 10; e = e.cause, depth++) yield e
}

/**
 * A sentence naming what to check, or undefined when the error is not one of
 * those this module knows.
 * @param {any} err @param {import('./config').Config} config
 * @returns {string | undefined}
 */
function explain (err, config) {
  const chain = [...causes(err)]
  // kafkajs wraps every error of its connections: one in the chain says the broker was the server.
  const kafka = chain.some((c) => String(c.name).startsWith('KafkaJS'))
  for (const e of chain) {
    if (e.name === 'KafkaJSSASLAuthenticationError') {
      return `Kafka refused the SASL credentials (KAFKA_SASL_MECHANISM=${config.KAFKA_SASL_MECHANISM}, ` +
        `KAFKA_SASL_USERNAME=${config.KAFKA_SASL_USERNAME}, KAFKA_SASL_PASSWORD): ${e.message}`
    }
    const server = kafka ? `the Kafka broker${e.broker ? ` ${e.broker}` : ''}` : 'a server'
    if (CERTIFICATE_CODES.has(e.code)) {
      return `the TLS certificate of ${server} was not accepted (${e.code}): ` +
        `${kafka ? 'KAFKA_TLS_CA_FILE' : 'KAFKA_TLS_CA_FILE or DB_TLS_CA_FILE'} must name the CA that signed it (empty: the public CAs Node.js trusts), and the certificate must name the host connected to`
    }
    // The server's alert: it did not accept this client's certificate, or its absence.
    if (typeof e.code === 'string' && CLIENT_CERTIFICATE_ALERT.test(e.code)) {
      return `${server} did not accept this client's TLS certificate (${e.code}): ` +
        `${kafka ? 'KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE' : 'the *_TLS_CERT_FILE and *_TLS_KEY_FILE settings'} must name a certificate it trusts, and its key`
    }
  }
  return undefined
}

/**
 * Logs why the process could not start and exits with 1.
 * @param {any} err @param {string} name the process's logger name
 * @param {{ env?: Record<string, string | undefined>, exit?: (code: number) => void, destination?: import('pino').DestinationStream }} [opts] for tests
 */
function exitAfterStartupFailure (err, name, { env, exit = (code) => process.exit(code), destination } = {}) {
  let config
  try {
    config = loadConfig(env)
  } catch (configError) {
    console.error(configError instanceof ConfigError ? configError.message : err)
    return exit(1)
  }
  const reason = explain(err, config)
  createLogger(config, { name, destination }).fatal({ err }, reason ? `could not start: ${reason}` : `could not start: ${err && err.message}`)
  exit(1)
}

module.exports = { exitAfterStartupFailure, explain }
