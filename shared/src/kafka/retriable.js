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
  'ER_QUERY_INTERRUPTED', 'ER_CONNECTION_KILLED', 'ER_CLIENT_INTERACTION_TIMEOUT',
  // The server's state, not the statement: it is read-only while a failover
  // promotes a new primary (1290, 1836), a Galera node not yet synced refuses
  // work (1047), the disk, a table or the lock table is full, memory runs
  // out, too many transactions are open, its network reads fail. Each passes
  // when the operator or the cluster puts it right; dead-lettering the
  // message instead would lose a commit or an abort for good.
  'ER_OPTION_PREVENTS_STATEMENT', 'ER_READ_ONLY_MODE', 'ER_UNKNOWN_COM_ERROR',
  'ER_DISK_FULL', 'ER_RECORD_FILE_FULL', 'ER_LOCK_TABLE_FULL', 'ER_OUTOFMEMORY', 'ER_OUT_OF_RESOURCES',
  'ER_TOO_MANY_CONCURRENT_TRXS', 'ER_LOCK_ABORTED',
  'ER_NET_READ_ERROR', 'ER_NET_READ_INTERRUPTED', 'ER_NET_ERROR_ON_WRITE', 'ER_NET_WRITE_INTERRUPTED'
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
