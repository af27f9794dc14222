'use strict'

// The timeout handler's SQL. Replicas claim disjoint sets of due transfers
// with one atomic UPDATE … LIMIT (no global lock, no leader); a claim whose
// messages were never produced lapses after the lease and is taken over.

const DUE_STATES = ['RECEIVED_PREPARE', 'RESERVED']

/**
 * Candidates come from a plain read (no row locks: in-flight transfers that
 * the fulfil and position handlers are locking are never touched); the claim
 * is an UPDATE by primary key that re-checks every condition, so two replicas
 * that read the same candidates claim each transfer once.
 * @param {import('knex').Knex} db
 * @param {{ claim: string, limit: number, leaseMs: number }} opts
 * @returns {Promise<number>} how many transfers were claimed
 */
async function claimExpired (db, { claim, limit, leaseMs }) {
  const lapsed = 'AND (expiry_claimed_at IS NULL OR expiry_claimed_at < CURRENT_TIMESTAMP(3) - INTERVAL ? MICROSECOND)'
  const [candidates] = await db.raw(
    `SELECT transfer_id FROM transfer
      WHERE state IN (?, ?) AND expiration <= CURRENT_TIMESTAMP(3) ${lapsed}
      ORDER BY expiration LIMIT ?`,
    [...DUE_STATES, leaseMs * 1000, limit])
  if (!candidates.length) return 0
  const ids = candidates.map((r) => r.transfer_id)
  const [result] = await db.raw(
    `UPDATE transfer SET expiry_claim = ?, expiry_claimed_at = CURRENT_TIMESTAMP(3)
      WHERE transfer_id IN (${ids.map(() => '?').join(',')})
        AND state IN (?, ?) AND expiration <= CURRENT_TIMESTAMP(3) ${lapsed}`,
    [claim, ...ids, ...DUE_STATES, leaseMs * 1000])
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
