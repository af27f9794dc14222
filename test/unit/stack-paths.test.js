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
