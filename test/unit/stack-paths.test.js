'use strict'

const { localServices } = require('../../scripts/stack/paths')
const { loadConfig } = require('../../shared/src/config')

test('the local stack runs Kafka and MariaDB for loopback addresses', () => {
  expect(localServices(loadConfig({}))).toEqual({ kafka: { port: 19092 }, mariadb: { port: 13306 } })
  expect(localServices(loadConfig({ KAFKA_BROKERS: 'localhost:29092', DB_HOST: 'localhost', DB_PORT: '23306' }))).toEqual({ kafka: { port: 29092 }, mariadb: { port: 23306 } })
})

test('external services and STACK=off start nothing', () => {
  expect(localServices(loadConfig({ KAFKA_BROKERS: 'kafka:9092', DB_HOST: 'mysql' }))).toEqual({ kafka: undefined, mariadb: undefined })
  expect(localServices(loadConfig({ KAFKA_BROKERS: '127.0.0.1:1,127.0.0.1:2' })).kafka).toBeUndefined()
  expect(localServices(loadConfig({ STACK: 'off' }))).toEqual({ kafka: undefined, mariadb: undefined })
})

test('a broker reached over TLS or SASL is never the stack\'s plaintext one', () => {
  expect(localServices(loadConfig({ KAFKA_BROKERS: '127.0.0.1:19094', KAFKA_TLS: 'true' }))).toEqual({ kafka: undefined, mariadb: { port: 13306 } })
  expect(localServices(loadConfig({ KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' })).kafka).toBeUndefined()
  // MariaDB speaks TLS on its one port: the stack still runs it.
  expect(localServices(loadConfig({ DB_TLS: 'true' })).mariadb).toEqual({ port: 13306 })
})
