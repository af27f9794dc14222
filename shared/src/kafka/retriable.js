'use strict'

// Whether a thrown error is an infrastructure hiccup worth retrying forever
// (the database or broker is briefly away, a deadlock) or something that will
// fail the same way every time and belongs in the dead-letter topic after a
// bounded number of attempts. Errors say so with a `retriable` flag; driver
// errors are recognised by their codes, never by message text.

const RETRIABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', 'ER_CON_COUNT_ERROR', 'ER_SERVER_SHUTDOWN',
  'ER_QUERY_INTERRUPTED', 'ER_CONNECTION_KILLED', 'ER_CLIENT_INTERACTION_TIMEOUT'
])

/** @param {any} err */
function isRetriable (err) {
  if (!err) return false
  if (typeof err.retriable === 'boolean') return err.retriable
  if (err.name === 'KnexTimeoutError') return true
  if (RETRIABLE_CODES.has(err.code)) return true
  // A mysql2 fatal error means the connection is gone, not that the query is wrong.
  if (err.fatal === true) return true
  return false
}

module.exports = { isRetriable }
