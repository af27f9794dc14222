'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { tlsOptions } = require('../../src/tls-files')
const { kafkaSecurity } = require('../../src/kafka/client')
const { loadConfig } = require('../../src/config')

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-tls-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
const file = (name, text) => { const p = path.join(dir, name); fs.writeFileSync(p, text); return p }
const CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'
const KEY = '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n'

test('TLS off: no options at all, and no file is read', () => {
  expect(tlsOptions(loadConfig({}), 'KAFKA', () => { throw new Error('read') })).toBeUndefined()
  expect(kafkaSecurity(loadConfig({}))).toEqual({})
})

test('TLS on: the named files, and the server is always verified', () => {
  const ca = file('ca.pem', CERT)
  expect(tlsOptions(loadConfig({ DB_TLS: 'true' }), 'DB')).toEqual({ rejectUnauthorized: true })
  const options = tlsOptions(loadConfig({ DB_TLS: 'true', DB_TLS_CA_FILE: ca, DB_TLS_CERT_FILE: file('c.pem', CERT), DB_TLS_KEY_FILE: file('c.key', KEY) }), 'DB')
  expect(Object.fromEntries(Object.entries(options).map(([k, v]) => [k, String(v)]))).toEqual({ rejectUnauthorized: 'true', ca: CERT, cert: CERT, key: KEY })
})

test('a file that cannot be read, or is not PEM, is named with its setting', () => {
  expect(() => tlsOptions(loadConfig({ KAFKA_TLS: 'true', KAFKA_TLS_CA_FILE: path.join(dir, 'missing.pem') }), 'KAFKA'))
    .toThrow(`KAFKA_TLS_CA_FILE=${path.join(dir, 'missing.pem')}: cannot read it (ENOENT)`)
  const der = file('ca.der', Buffer.from([0x30, 0x82, 0x01, 0x0a]))
  expect(() => tlsOptions(loadConfig({ KAFKA_TLS: 'true', KAFKA_TLS_CA_FILE: der }), 'KAFKA')).toThrow(`KAFKA_TLS_CA_FILE=${der}: not a PEM file`)
})

test('kafkajs gets SASL with the mechanism, user and password, and TLS beside it', () => {
  const ca = file('kafka-ca.pem', CERT)
  const security = kafkaSecurity(loadConfig({ KAFKA_TLS: 'true', KAFKA_TLS_CA_FILE: ca, KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'switch', KAFKA_SASL_PASSWORD: 's3cret' }))
  expect(security.sasl).toEqual({ mechanism: 'scram-sha-512', username: 'switch', password: 's3cret' })
  expect(String(security.ssl.ca)).toBe(CERT)
  expect(kafkaSecurity(loadConfig({ KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' }))).toEqual({ sasl: { mechanism: 'scram-sha-256', username: 'u', password: 'p' } })
})
