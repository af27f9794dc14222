'use strict'

// SQL shared by the ledger handlers: reading transfers, updating their state,
// and the state history. One statement per call, whatever the batch size.

/** Columns every handler reads. */
const TRANSFER_COLUMNS = [
  'transfer_id', 'payer_fsp', 'payee_fsp', 'payer_account_id', 'payee_account_id', 'amount', 'currency',
  'ilp_condition', 'expiration', 'request_hash', 'state', 'error_code', 'error_description', 'fulfilment',
  'fulfil_hash', 'completed_at', 'payee_reserved', 'pending_payer_resends', 'pending_payee_resends'
]

/**
 * @typedef {{ transfer_id: string, payer_fsp: string, payee_fsp: string, payer_account_id: number | null,
 *   payee_account_id: number | null, amount: string, currency: string, ilp_condition: string, expiration: Date,
 *   request_hash: string, state: string, error_code: string | null, error_description: string | null,
 *   fulfilment: string | null, fulfil_hash: string | null, completed_at: Date | null, payee_reserved: number,
 *   pending_payer_resends: number, pending_payee_resends: number }} TransferRow
 */

/**
 * The same read as a statement, for a handler's prefetch.
 * @param {string[]} ids
 * @param {{ lock?: boolean }} [opts]
 */
function transfersQuery (ids, { lock = false } = {}) {
  return {
    sql: `SELECT ${TRANSFER_COLUMNS.join(', ')} FROM transfer WHERE transfer_id IN (${ids.map(() => '?').join(',') || 'NULL'})${lock ? ' FOR UPDATE' : ''}`,
    bindings: ids
  }
}

/**
 * The transfers a batch of commands names (`value.transferId`), locked: a
 * handler's prefetch.
 * @param {{ value: any }[]} records
 */
const lockedTransfersOf = (records) =>
  transfersQuery([...new Set(records.map((r) => r.value && r.value.transferId).filter((id) => typeof id === 'string'))], { lock: true })

/** @param {TransferRow[]} rows @returns {Map<string, TransferRow>} */
const toTransferMap = (rows) => new Map(rows.map((r) => [r.transfer_id, r]))

/**
 * @param {import('knex').Knex.Transaction} trx
 * @param {string[]} ids
 * @param {{ lock?: boolean }} [opts] lock: SELECT … FOR UPDATE
 * @returns {Promise<Map<string, TransferRow>>}
 */
async function findTransfers (trx, ids, opts) {
  if (!ids.length) return new Map()
  const { sql, bindings } = transfersQuery(ids, opts)
  return toTransferMap((await trx.raw(sql, bindings))[0])
}

/**
 * Applies column changes to many transfers in one UPDATE (CASE per column),
 * added to the transaction's write batch. Each transfer is a key of the
 * statement: chunks of different stages that change the same transfer (a
 * fulfil and its expiry, a resend and the commit it waits for) never commit in
 * one shared transaction, where their row locks could not keep them apart.
 * @param {ReturnType<typeof import('@switchyard/shared/db').createWriteBatch>} writes
 * @param {Map<string, Record<string, any>>} changes transferId → { column: value }
 */
function updateTransfers (writes, changes) {
  if (!changes.size) return
  const ids = [...changes.keys()]
  const columns = [...new Set([...changes.values()].flatMap((c) => Object.keys(c)))]
  const sets = []
  const bindings = []
  for (const column of columns) {
    const cases = []
    for (const [id, change] of changes) {
      if (!(column in change)) continue
      cases.push('WHEN ? THEN ?')
      bindings.push(id, change[column])
    }
    sets.push(`\`${column}\` = CASE transfer_id ${cases.join(' ')} ELSE \`${column}\` END`)
  }
  writes.add(
    `UPDATE transfer SET ${sets.join(', ')}, updated_at = CURRENT_TIMESTAMP(3) WHERE transfer_id IN (${ids.map(() => '?').join(',')})`,
    [...bindings, ...ids], undefined, ids.map((id) => `transfer:${id}`))
}

/**
 * One multi-row INSERT of state history, added to the write batch.
 * @param {import('knex').Knex.Transaction} trx builds the statement
 * @param {ReturnType<typeof import('@switchyard/shared/db').createWriteBatch>} writes
 * @param {{ transfer_id: string, state: string, reason?: string | null }[]} rows
 */
function insertStateChanges (trx, writes, rows) {
  if (!rows.length) return
  writes.add(trx('transfer_state_change').insert(rows.map((r) => ({ transfer_id: r.transfer_id, state: r.state, reason: r.reason ? r.reason.slice(0, 512) : null }))))
}

module.exports = { findTransfers, transfersQuery, lockedTransfersOf, toTransferMap, updateTransfers, insertStateChanges }
