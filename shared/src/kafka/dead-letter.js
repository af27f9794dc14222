'use strict'

const { deadLetterTopic } = require('./topics')

/**
 * The one shape of a dead-letter record: where the record came from, the
 * record itself (its raw text when it was not JSON) and why it was given up.
 * @param {import('./envelope').IncomingMessage} record
 * @param {{ message: string, code?: string, attempts: number }} error
 * @param {string} [topic] defaults to the record's topic's dead-letter topic
 * @returns {import('./envelope').OutgoingMessage}
 */
function toDeadLetter (record, error, topic = deadLetterTopic(record.topic)) {
  return {
    topic,
    key: record.key ?? '',
    value: {
      topic: record.topic,
      partition: record.partition,
      offset: String(record.offset),
      key: record.key,
      value: record.parseError ? record.raw : record.value,
      headers: record.headers,
      error
    },
    headers: { ...record.headers, 'x-error': String(error.message).slice(0, 500) }
  }
}

module.exports = { toDeadLetter }
