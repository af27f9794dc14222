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
 * Recent ids for the bloom filter at start-up: the newest `limit` of the last
 * `hours` (transfer_created_at_idx), oldest first, so the filter learns them
 * in the order they came.
 * @param {import('knex').Knex} db
 * @param {{ hours: number, limit: number }} opts
 */
async function recentTransferIds (db, { hours, limit }) {
  const rows = await db('transfer').select('transfer_id')
    .where('created_at', '>', db.raw('CURRENT_TIMESTAMP(3) - INTERVAL ? HOUR', [hours]))
    .orderBy('created_at', 'desc')
    .limit(limit)
  return rows.map((r) => r.transfer_id).reverse()
}

module.exports = { participantsQuery, toParticipants, recentTransferIds }
