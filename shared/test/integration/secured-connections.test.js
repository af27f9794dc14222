'use strict'

// Switchyard against a Kafka and a MySQL that only secured clients reach, as
// in a managed cloud: the API and the handlers, started as operators start
// them, complete a transfer over the local broker's SASL_SSL listener (SCRAM)
// or its mutual-TLS listener, with a database user that only TLS (or only a
// client certificate) may use. A process that Kafka refuses says why in one
// fatal line and exits 1. The servers are the local stack's own; its private
// CA signed their certificates (scripts/stack/tls.js).

const { startProcess, startApart, startPair } = require('../../../test/support/processes')
const { testConfig, unique } = require('../../../test/support/config')
const { stackPaths, localServices } = require('../../../scripts/stack/paths')
const { securedListeners } = require('../../../scripts/stack/kafka')
const mariadb = require('../../../scripts/stack/mariadb')
const { createDb } = require('../../src/db')
const { createLogger } = require('../../src/logger')

const config = testConfig()
// The stack's servers and ports, also when the tests run with STACK=off on a stack already up.
const local = localServices(testConfig({ STACK: 'auto' }))
const paths = stackPaths(config)
const secured = securedListeners(paths, local.kafka.port)
const server = { paths, port: local.mariadb.port }
const { quote } = mariadb
// knex's warnings of the refused connections below, at the tests' level (fatal): not printed.
const quiet = createLogger(config)

// Database users of this run: one that TLS must carry, one that must present
// the stack's client certificate.
const tlsUser = unique('tls')
const x509User = unique('x509')
const PASSWORD = unique('pw')

beforeAll(() => {
  mariadb.sql(server, [
    `CREATE USER ${quote(tlsUser)}@'127.0.0.1' IDENTIFIED BY ${quote(PASSWORD)} REQUIRE SSL`,
    `CREATE USER ${quote(x509User)}@'127.0.0.1' IDENTIFIED BY ${quote(PASSWORD)} REQUIRE X509`,
    `GRANT ALL PRIVILEGES ON *.* TO ${quote(tlsUser)}@'127.0.0.1'`,
    `GRANT ALL PRIVILEGES ON *.* TO ${quote(x509User)}@'127.0.0.1'`
  ].join(';\n'))
})

const closers = []
afterAll(async () => {
  for (const close of closers.reverse()) await close()
  mariadb.sql(server, `DROP USER IF EXISTS ${quote(tlsUser)}@'127.0.0.1'; DROP USER IF EXISTS ${quote(x509User)}@'127.0.0.1'`)
})

const SCRAM = {
  KAFKA_BROKERS: secured.saslSsl,
  KAFKA_TLS: 'true',
  KAFKA_TLS_CA_FILE: secured.caFile,
  KAFKA_SASL_MECHANISM: 'scram-sha-512',
  KAFKA_SASL_USERNAME: secured.username,
  KAFKA_SASL_PASSWORD: secured.password
}
const DB_OVER_TLS = { DB_USER: tlsUser, DB_PASSWORD: PASSWORD, DB_TLS: 'true', DB_TLS_CA_FILE: secured.caFile }
const MUTUAL_TLS = {
  KAFKA_BROKERS: secured.mutualTls,
  KAFKA_TLS: 'true',
  KAFKA_TLS_CA_FILE: secured.caFile,
  KAFKA_TLS_CERT_FILE: secured.clientCertFile,
  KAFKA_TLS_KEY_FILE: secured.clientKeyFile
}
const DB_BY_CERTIFICATE = { ...DB_OVER_TLS, DB_USER: x509User, DB_TLS_CERT_FILE: secured.clientCertFile, DB_TLS_KEY_FILE: secured.clientKeyFile }

/** Processes of their own topics, over TCP to the database (never the stack's socket). @param {Record<string, string>} env */
function envFor (env) {
  const id = unique('sec')
  return { KAFKA_TOPIC_PREFIX: `${id}.`, KAFKA_CLIENT_ID: id, STACK: 'off', DB_SOCKET: '', ...env }
}

test.each([
  ['SASL_SSL with SCRAM-SHA-512, and a database user that only TLS may use', { ...SCRAM, ...DB_OVER_TLS }],
  ['mutual TLS, and a database user that must present a client certificate', { ...MUTUAL_TLS, ...DB_BY_CERTIFICATE }]
])('Kafka over %s: a transfer completes', async (_name, secure) => {
  const env = envFor(secure)
  const sy = await startApart(env, closers)
  const { commitTransfer } = await startPair(sy, closers, 's')
  // Sent, fulfilled and COMMITTED at both participants (startPair asserts each).
  await commitTransfer('7')
  for (const exit of await sy.stop()) expect(exit).toEqual({ code: 0, signal: null })
}, 180000)

test('the database refuses each user without TLS, or without its certificate; over TLS the session is encrypted', async () => {
  // The same users without TLS, or without the certificate, are refused.
  for (const [user, tls] of [[tlsUser, {}], [x509User, { DB_TLS: 'true', DB_TLS_CA_FILE: secured.caFile }]]) {
    const db = createDb(testConfig({ DB_USER: user, DB_PASSWORD: PASSWORD, DB_SOCKET: '', ...tls }), { logger: quiet })
    try {
      await expect(db.raw('SELECT 1')).rejects.toThrow(/Access denied/)
    } finally {
      await db.destroy()
    }
  }
  const db = createDb(testConfig({ ...DB_OVER_TLS, DB_SOCKET: '' }))
  try {
    const [[cipher]] = await db.raw("SHOW SESSION STATUS LIKE 'Ssl_cipher'")
    expect(cipher.Value).toMatch(/^TLS_|^ECDHE|^AES/)
  } finally {
    await db.destroy()
  }
})

test.each([
  ['a wrong SASL password', { ...SCRAM, KAFKA_SASL_PASSWORD: 'not-the-password' }, /^could not start: Kafka refused the SASL credentials \(KAFKA_SASL_MECHANISM=scram-sha-512, KAFKA_SASL_USERNAME=switchyard, KAFKA_SASL_PASSWORD\): /],
  ['a CA that did not sign the broker\'s certificate', { ...SCRAM, KAFKA_TLS_CA_FILE: secured.clientCertFile }, /^could not start: the TLS certificate of the Kafka broker 127\.0\.0\.1:\d+ was not accepted \([A-Z_]+\): KAFKA_TLS_CA_FILE must name the CA/],
  ['no client certificate for the mutual-TLS listener', { ...MUTUAL_TLS, KAFKA_TLS_CERT_FILE: '', KAFKA_TLS_KEY_FILE: '' }, /^could not start: the Kafka broker 127\.0\.0\.1:\d+ did not accept this client's TLS certificate \(ERR_SSL_[A-Z0-9_]+\): KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE must name/]
])('with %s, a process says why in one fatal line and exits 1', async (_name, kafka, message) => {
  const proc = startProcess('handlers/src/main.js', ['position'], { ...envFor({ ...kafka, ...DB_OVER_TLS }), HEALTH_PORT: '0', LOG_LEVEL: 'info' })
  closers.push(() => proc.stop())
  expect(await proc.exited).toEqual({ code: 1, signal: null })
  const fatal = proc.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).filter((l) => l.level === 60)
  expect(fatal).toHaveLength(1)
  expect(fatal[0].msg).toMatch(message)
  expect(proc.output()).not.toContain('not-the-password')
}, 120000)
