'use strict'

/**
 * Runs `work` in one transaction: committed if it resolves, rolled back if it
 * throws (and the error rethrown). Callers batch many messages into one call
 * so the ledger pays one fsync per batch, not per message.
 *
 * @template T
 * @param {import('knex').Knex} db
 * @param {(trx: import('knex').Knex.Transaction) => Promise<T>} work
 * @returns {Promise<T>}
 */
async function withTransaction (db, work) {
  return db.transaction(async (trx) => work(trx))
}

module.exports = { withTransaction }
