'use strict'

const { TOPICS, topicName, deadLetterTopic, allTopicNames } = require('../../src/kafka/topics')
const { loadConfig } = require('../../src/config')
const { isRetriable } = require('../../src/kafka/retriable')

test('topic names carry the configured prefix, each with a dead-letter topic', () => {
  const config = loadConfig({ KAFKA_TOPIC_PREFIX: 'acme.' })
  expect(topicName(config, 'position')).toBe('acme.transfer-position')
  expect(deadLetterTopic('acme.transfer-position')).toBe('acme.transfer-position.dlq')
  expect(allTopicNames(config)).toHaveLength(Object.keys(TOPICS).length * 2)
  expect(() => topicName(config, /** @type {any} */ ('nope'))).toThrow(/unknown topic/)
})

test('retriable errors are recognised by flag and driver code, never by message', () => {
  expect(isRetriable(Object.assign(new Error('x'), { retriable: true }))).toBe(true)
  expect(isRetriable(Object.assign(new Error('x'), { code: 'ER_LOCK_DEADLOCK' }))).toBe(true)
  expect(isRetriable(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(true)
  expect(isRetriable(Object.assign(new Error('Deadlock found'), { code: 'ER_PARSE_ERROR' }))).toBe(false)
  expect(isRetriable(new Error('bug'))).toBe(false)
})

test('a database that is read-only in a failover, full or out of resources is waited for, not a reason to dead-letter', () => {
  for (const code of ['ER_OPTION_PREVENTS_STATEMENT', 'ER_READ_ONLY_MODE', 'ER_UNKNOWN_COM_ERROR', 'ER_DISK_FULL', 'ER_RECORD_FILE_FULL',
    'ER_LOCK_TABLE_FULL', 'ER_OUTOFMEMORY', 'ER_OUT_OF_RESOURCES', 'ER_TOO_MANY_CONCURRENT_TRXS', 'ER_NET_READ_ERROR']) {
    expect([code, isRetriable(Object.assign(new Error('x'), { code }))]).toEqual([code, true])
  }
  // A statement the schema refuses fails the same way every time.
  for (const code of ['ER_DUP_ENTRY', 'ER_NO_SUCH_TABLE', 'ER_WARN_DATA_OUT_OF_RANGE', 'ER_TRUNCATED_WRONG_VALUE']) {
    expect([code, isRetriable(Object.assign(new Error('x'), { code }))]).toEqual([code, false])
  }
})
