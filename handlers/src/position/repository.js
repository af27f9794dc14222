'use strict'

// The position handler's SQL: one locked read of the accounts a batch
// touches, then one statement each for new position values and history.

const { parseAmount, toDbDecimal } = require('@switchyard/shared/money')

/**
 * Positions with their net debit cap and liquidity (minus the value of the
 * participant's SETTLEMENT account in the same currency), locked for the
 * batch. Messages are partitioned by account, so the lock is a safety net,
 * not the mechanism (DESIGN.md rule 3); in a shared transaction it is no
 * net at all, which is why saveAccountValues names its accounts.
 * @param {number[]} accountIds
 */
function accountsQuery (accountIds) {
  return {
    sql: `SELECT a.account_id, COALESCE(p.value, 0) AS value, l.value AS net_debit_cap, s.value AS settlement_value
       FROM participant_account a
       LEFT JOIN participant_position p ON p.account_id = a.account_id
       LEFT JOIN participant_limit l ON l.account_id = a.account_id AND l.limit_type = 'NET_DEBIT_CAP'
       LEFT JOIN participant_account sa ON sa.participant_id = a.participant_id AND sa.currency = a.currency
                                       AND sa.ledger_account_type = 'SETTLEMENT'
       LEFT JOIN participant_position s ON s.account_id = sa.account_id
      WHERE a.account_id IN (${accountIds.map(() => '?').join(',') || 'NULL'})
      FOR UPDATE`,
    bindings: accountIds
  }
}

/** @param {any[]} rows @returns {Map<number, import('./calculate').AccountView>} */
function toAccounts (rows) {
  return new Map(rows.map((r) => [r.account_id, {
    value: parseAmount(r.value),
    netDebitCap: r.net_debit_cap === null ? null : parseAmount(r.net_debit_cap),
    liquidity: r.settlement_value === null ? null : -parseAmount(r.settlement_value)
  }]))
}

/**
 * @param {import('knex').Knex.Transaction} trx
 * @param {number[]} accountIds
 * @returns {Promise<Map<number, import('./calculate').AccountView>>}
 */
async function lockAccounts (trx, accountIds) {
  if (!accountIds.length) return new Map()
  const { sql, bindings } = accountsQuery(accountIds)
  const [rows] = await trx.raw(sql, bindings)
  return toAccounts(rows)
}

/**
 * New values of every account the batch moved: one statement, added to the
 * write batch. The values are absolute, planned from the locked read, so the
 * statement names the accounts it writes: two chunks that moved one account
 * (possible only while its messages are in two partitions, after the
 * partition count grew) never commit in one shared transaction, where their
 * locks would not keep them apart and one update would be lost; each runs
 * alone, and the row lock orders them.
 * @param {ReturnType<typeof import('@switchyard/shared/db').createWriteBatch>} writes
 * @param {Map<number, bigint>} values
 * @param {Map<number, number>} changeCounts
 */
function saveAccountValues (writes, values, changeCounts) {
  if (!values.size) return
  const rows = [...values].map(([id, v]) => [id, toDbDecimal(v), changeCounts.get(id) || 1])
  writes.add(
    `INSERT INTO participant_position (account_id, value, change_seq) VALUES ${rows.map(() => '(?, ?, ?)').join(', ')}
     ON DUPLICATE KEY UPDATE change_seq = change_seq + VALUES(change_seq), value = VALUES(value), updated_at = CURRENT_TIMESTAMP(3)`,
    rows.flat(), undefined, [...values.keys()].map((id) => `account:${id}`))
}

/**
 * @param {import('knex').Knex.Transaction} trx builds the statement
 * @param {ReturnType<typeof import('@switchyard/shared/db').createWriteBatch>} writes
 * @param {{ account_id: number, transfer_id: string, change: bigint, value_after: bigint }[]} changes
 */
function insertPositionChanges (trx, writes, changes) {
  if (!changes.length) return
  writes.add(trx('participant_position_change').insert(changes.map((c) => ({
    account_id: c.account_id, transfer_id: c.transfer_id, change: toDbDecimal(c.change), value_after: toDbDecimal(c.value_after)
  }))))
}

module.exports = { accountsQuery, toAccounts, lockAccounts, saveAccountValues, insertPositionChanges }
