'use strict'

// The prepare handler's SQL.

/**
 * Participants named in a batch, with their POSITION accounts per currency,
 * as a statement: the prepare handler's prefetch, run with BEGIN.
 * @param {string[]} names
 */
function participantsQuery (names) {
  return {
    sql: `SELECT p.name, p.is_active AS participant_active, a.account_id, a.currency, a.is_active AS account_active
       FROM participant p
       LEFT JOIN participant_account a ON a.participant_id = p.participant_id AND a.ledger_account_type = 'POSITION'
      WHERE p.name IN (${names.map(() => '?').join(',') || 'NULL'})`,
    bindings: names
  }
}

/**
 * @param {any[]} rows the result of participantsQuery()
 * @returns {Map<string, import('./validate').ParticipantView>}
 */
function toParticipants (rows) {
  /** @type {Map<string, import('./validate').ParticipantView>} */
  const out = new Map()
  for (const r of rows) {
    if (!out.has(r.name)) out.set(r.name, { active: Boolean(r.participant_active), accounts: new Map() })
    if (r.account_id !== null) out.get(r.name).accounts.set(r.currency, { accountId: r.account_id, active: Boolean(r.account_active) })
  }
  return out
}

/**
 * One multi-row INSERT for every new transfer of the batch.
 * @param {import('knex').Knex.Transaction} trx
 * @param {Record<string, any>[]} rows
 */
async function insertTransfers (trx, rows) {
  if (rows.length) await trx('transfer').insert(rows)
}

/**
 * A duplicate of a transfer still in flight: remember to answer it when the
 * transfer reaches a final state. Returns false when it already has (the
 * caller then answers at once). Rare, so one statement per duplicate.
 * @param {import('knex').Knex.Transaction} trx
 * @param {string} transferId
 * @param {'pending_payer_resends' | 'pending_payee_resends'} column
 * @param {string[]} finalStates
 */
async function addPendingResend (trx, transferId, column, finalStates) {
  const [result] = await trx.raw(
    `UPDATE transfer SET ${column} = ${column} + 1 WHERE transfer_id = ? AND state NOT IN (${finalStates.map(() => '?').join(',')})`,
    [transferId, ...finalStates])
  return result.affectedRows === 1
}

/**
 * Recent ids for the bloom filter at start-up.
 * @param {import('knex').Knex} db
 * @param {{ hours: number, limit: number }} opts
 */
async function recentTransferIds (db, { hours, limit }) {
  const rows = await db('transfer').select('transfer_id')
    .where('created_at', '>', db.raw('CURRENT_TIMESTAMP(3) - INTERVAL ? HOUR', [hours]))
    .limit(limit)
  return rows.map((r) => r.transfer_id)
}

module.exports = { participantsQuery, toParticipants, insertTransfers, addPendingResend, recentTransferIds }
