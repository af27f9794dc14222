'use strict'

// The timeout handler's SQL. Replicas claim disjoint sets of due transfers
// with one atomic UPDATE … LIMIT (no global lock, no leader); a claim whose
// messages were never produced lapses after the lease and is taken over.

const DUE_STATES = ['RECEIVED_PREPARE', 'RESERVED']

/**
 * @param {import('knex').Knex} db
 * @param {{ claim: string, limit: number, leaseMs: number }} opts
 * @returns {Promise<number>} how many transfers were claimed
 */
async function claimExpired (db, { claim, limit, leaseMs }) {
  const [result] = await db.raw(
    `UPDATE transfer SET expiry_claim = ?, expiry_claimed_at = CURRENT_TIMESTAMP(3)
      WHERE state IN (?, ?) AND expiration <= CURRENT_TIMESTAMP(3)
        AND (expiry_claimed_at IS NULL OR expiry_claimed_at < CURRENT_TIMESTAMP(3) - INTERVAL ? MICROSECOND)
      ORDER BY expiration
      LIMIT ?`,
    [claim, ...DUE_STATES, leaseMs * 1000, limit])
  return result.affectedRows
}

/**
 * @param {import('knex').Knex} db
 * @param {string} claim
 */
async function claimedTransfers (db, claim) {
  return db('transfer').select('transfer_id', 'payer_account_id', 'amount', 'currency').where({ expiry_claim: claim })
}

module.exports = { claimExpired, claimedTransfers }
