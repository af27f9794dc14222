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
