'use strict'

// Callbacks a test leaves PENDING would be recovered by the next test file's
// notification handler (recovery takes any lapsed or released row): sent to
// servers long closed, and counted in that handler's metrics. A test ends
// its own.

/**
 * Marks FAILED the PENDING callbacks whose `column` is LIKE `pattern`.
 * @param {import('knex').Knex} db @param {'participant' | 'callback_id'} column @param {string} pattern
 */
async function failPendingCallbacks (db, column, pattern) {
  await db('callback').where(column, 'like', pattern).andWhere({ status: 'PENDING' }).update({ status: 'FAILED', claim_until: null })
}

module.exports = { failPendingCallbacks }
