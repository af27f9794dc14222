'use strict'

const { Writable } = require('node:stream')
const { KafkaJSSASLAuthenticationError, KafkaJSNumberOfRetriesExceeded, KafkaJSConnectionError } = require('kafkajs/src/errors')
const { explain, exitAfterStartupFailure } = require('../../src/startup-failure')
const { loadConfig } = require('../../src/config')

const SASL = { KAFKA_TLS: 'true', KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'switch', KAFKA_SASL_PASSWORD: 'secret' }

/** As kafkajs's connect() ends after its retries. */
const afterRetries = (e) => new KafkaJSNumberOfRetriesExceeded(e, { retryCount: 8, retryTime: 1000 })

test('Kafka refusing the credentials names the SASL settings, never the password', () => {
  const reason = explain(afterRetries(new KafkaJSSASLAuthenticationError('SASL SCRAM SHA512 authentication failed: invalid credentials')), loadConfig(SASL))
  expect(reason).toBe('Kafka refused the SASL credentials (KAFKA_SASL_MECHANISM=scram-sha-512, KAFKA_SASL_USERNAME=switch, KAFKA_SASL_PASSWORD): SASL SCRAM SHA512 authentication failed: invalid credentials')
  expect(reason).not.toContain('secret')
})

test('a broker certificate the client did not accept names the CA setting', () => {
  const refused = new KafkaJSConnectionError('Connection error: self-signed certificate in certificate chain', { broker: 'kafka-0:9093', code: 'SELF_SIGNED_CERT_IN_CHAIN' })
  expect(explain(afterRetries(refused), loadConfig({}))).toBe('the TLS certificate of the Kafka broker kafka-0:9093 was not accepted (SELF_SIGNED_CERT_IN_CHAIN): ' +
    'KAFKA_TLS_CA_FILE must name the CA that signed it (empty: the public CAs Node.js trusts), and the certificate must name the host connected to')
  const wrongHost = Object.assign(new Error('Hostname/IP does not match certificate\'s altnames'), { code: 'ERR_TLS_CERT_ALTNAME_INVALID' })
  expect(explain(wrongHost, loadConfig({}))).toMatch(/^the TLS certificate of a server was not accepted \(ERR_TLS_CERT_ALTNAME_INVALID\): KAFKA_TLS_CA_FILE or DB_TLS_CA_FILE must name/)
})

test('a broker that did not accept this client\'s certificate names the client certificate settings', () => {
  const alert = new KafkaJSConnectionError('Connection error: sslv3 alert bad certificate', { broker: 'kafka-0:9094', code: 'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE' })
  expect(explain(afterRetries(alert), loadConfig({}))).toBe('the Kafka broker kafka-0:9094 did not accept this client\'s TLS certificate (ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE): ' +
    'KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE must name a certificate it trusts, and its key')
})

test('anything else is left as it is', () => {
  expect(explain(new Error('connect ECONNREFUSED 127.0.0.1:9092'), loadConfig({}))).toBeUndefined()
  expect(explain(undefined, loadConfig({}))).toBeUndefined()
})

test('one fatal JSON line, then exit 1; a configuration that does not load is printed as it is', () => {
  let out = ''
  const destination = new Writable({ write (chunk, _enc, done) { out += chunk; done() } })
  const codes = []
  exitAfterStartupFailure(afterRetries(new KafkaJSSASLAuthenticationError('denied')), 'handlers', { env: SASL, exit: (c) => codes.push(c), destination })
  const lines = out.trim().split('\n').map((l) => JSON.parse(l))
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatchObject({ level: 60, name: 'handlers', msg: expect.stringMatching(/^could not start: Kafka refused the SASL credentials/) })
  expect(codes).toEqual([1])

  const printed = jest.spyOn(console, 'error').mockImplementation(() => {})
  try {
    exitAfterStartupFailure(new Error('x'), 'handlers', { env: { KAFKA_TLS_CA_FILE: '/ca.pem' }, exit: (c) => codes.push(c), destination })
    expect(printed.mock.calls[0][0]).toContain('KAFKA_TLS_CA_FILE is set but KAFKA_TLS is not true')
  } finally {
    printed.mockRestore()
  }
  expect(codes).toEqual([1, 1])
})
