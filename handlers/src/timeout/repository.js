'use strict'

// The timeout handler's SQL. Replicas claim disjoint sets of due transfers
// with one atomic UPDATE … LIMIT (no global lock, no leader); a claim whose
// messages were never produced lapses after the lease and is taken over.
// Every statement after the candidates' read goes by primary key: the claim
// column has no index, since on a large ledger one on it (NULL for almost
// every row, so ordered by the random transfer ids) cost a random page per
// new transfer (docs/benchmarks.md, the 10 M-transfer ledger).

/** @param {string[]} ids */
const inIds = (ids) => `transfer_id IN (${ids.map(() => '?').join(',')})`

const DUE_STATES = ['RECEIVED_PREPARE', 'RESERVED']

/**
 * Candidates come from a plain read (no row locks: in-flight transfers that
 * the fulfil and position handlers are locking are never touched); the claim
 * is an UPDATE by primary key that re-checks every condition, so two replicas
 * that read the same candidates claim each transfer once.
 * @param {import('knex').Knex} db
 * @param {{ claim: string, limit: number, leaseMs: number }} opts
 * @returns {Promise<{ claimed: number, ids: string[] }>} how many transfers were claimed, among the candidates `ids`
 */
async function claimExpired (db, { claim, limit, leaseMs }) {
  const lapsed = 'AND (expiry_claimed_at IS NULL OR expiry_claimed_at < CURRENT_TIMESTAMP(3) - INTERVAL ? MICROSECOND)'
  const [candidates] = await db.raw(
    `SELECT transfer_id FROM transfer
      WHERE state IN (?, ?) AND expiration <= CURRENT_TIMESTAMP(3) ${lapsed}
      ORDER BY expiration LIMIT ?`,
    [...DUE_STATES, leaseMs * 1000, limit])
  if (!candidates.length) return { claimed: 0, ids: [] }
  const ids = candidates.map((r) => r.transfer_id)
  const [result] = await db.raw(
    `UPDATE transfer SET expiry_claim = ?, expiry_claimed_at = CURRENT_TIMESTAMP(3)
      WHERE ${inIds(ids)} AND state IN (?, ?) AND expiration <= CURRENT_TIMESTAMP(3) ${lapsed}`,
    [claim, ...ids, ...DUE_STATES, leaseMs * 1000])
  return { claimed: result.affectedRows, ids }
}

/**
 * A claim whose commands were sent lapses only after `holdMs` instead of the
 * lease: while the position handler lags (a crashed replica's partitions
 * wait out the session timeout, a backlog drains) its expiries would
 * otherwise be sent again once per lease, adding to the backlog. A lost
 * command is still sent again, once per `holdMs`.
 * @param {import('knex').Knex} db @param {string} claim @param {string[]} ids the claim's candidates
 * @param {{ holdMs: number, leaseMs: number }} opts
 */
async function holdSentClaim (db, claim, ids, { holdMs, leaseMs }) {
  if (holdMs <= leaseMs || !ids.length) return
  await db.raw(`UPDATE transfer SET expiry_claimed_at = CURRENT_TIMESTAMP(3) + INTERVAL ? MICROSECOND WHERE ${inIds(ids)} AND expiry_claim = ?`,
    [(holdMs - leaseMs) * 1000, ...ids, claim])
}

/**
 * The transfers of `claim` among its candidates.
 * @param {import('knex').Knex} db @param {string} claim @param {string[]} ids
 */
async function claimedTransfers (db, claim, ids) {
  return db('transfer').select('transfer_id', 'state', 'payer_account_id', 'payee_account_id', 'amount', 'currency')
    .whereIn('transfer_id', ids).andWhere({ expiry_claim: claim })
}

/**
 * States a fulfil or payee error leaves a transfer in until the position
 * handler applies its commit or abort: a transfer still in one long after
 * (updated_at, the last change to its row) lost that command, which went to
 * the dead-letter topic. The same claim columns as expiry: a transfer is
 * claimed at most once per `afterMs`, by one replica.
 */
const STUCK_STATES = ['RECEIVED_FULFIL', 'RECEIVED_ERROR']

/**
 * @param {import('knex').Knex} db
 * @param {{ claim: string, limit: number, afterMs: number }} opts
 * @returns {Promise<{ claimed: number, ids: string[] }>} how many transfers were claimed, among the candidates `ids`
 */
async function claimStuck (db, { claim, limit, afterMs }) {
  const due = `state IN (?, ?) AND updated_at < CURRENT_TIMESTAMP(3) - INTERVAL ? MICROSECOND
    AND (expiry_claimed_at IS NULL OR expiry_claimed_at < CURRENT_TIMESTAMP(3) - INTERVAL ? MICROSECOND)`
  const params = [...STUCK_STATES, afterMs * 1000, afterMs * 1000]
  // The state index bounds the read to transfers in flight between fulfil and position.
  const [candidates] = await db.raw(`SELECT transfer_id FROM transfer WHERE ${due} ORDER BY updated_at LIMIT ?`, [...params, limit])
  if (!candidates.length) return { claimed: 0, ids: [] }
  const ids = candidates.map((r) => r.transfer_id)
  const [result] = await db.raw(`UPDATE transfer SET expiry_claim = ?, expiry_claimed_at = CURRENT_TIMESTAMP(3) WHERE ${inIds(ids)} AND ${due}`,
    [claim, ...ids, ...params])
  return { claimed: result.affectedRows, ids }
}

module.exports = { claimExpired, claimedTransfers, claimStuck, holdSentClaim, STUCK_STATES }
