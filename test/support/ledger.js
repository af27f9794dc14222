'use strict'

// What an auditor checks after every test: no money created or lost, and no
// transfer left hanging past its expiration.

const { parseAmount, formatAmount } = require('../../shared/src/money')
const { FINAL } = require('../../handlers/src/common/states')
const { waitUntil } = require('./wait')

const FINAL_STATES = [...FINAL]

/**
 * Per currency, the non-zero sum of every account's value (participants' positions
 * and settlement accounts, and the hub's accounts).
 * @param {import('knex').Knex} db
 */
async function ledgerSums (db) {
  const rows = await db('participant_position as p').join('participant_account as a', 'a.account_id', 'p.account_id').select('a.currency', 'p.value')
  /** @type {Record<string, bigint>} */
  const sums = {}
  for (const r of rows) sums[r.currency] = (sums[r.currency] || 0n) + parseAmount(r.value)
  // A currency whose accounts sum to zero is left out, so a currency first
  // used during a test compares equal to its absence before.
  return Object.fromEntries(Object.entries(sums).filter(([, v]) => v !== 0n).map(([c, v]) => [c, formatAmount(v)]))
}

/** @param {import('knex').Knex} db @param {string[]} ids */
async function waitAllFinal (db, ids, timeoutMs = 30000) {
  await waitUntil(async () => {
    const open = await db('transfer').whereIn('transfer_id', ids).whereNotIn('state', FINAL_STATES).count({ n: '*' })
    const stored = await db('transfer').whereIn('transfer_id', ids).count({ n: '*' })
    return Number(open[0].n) === 0 && Number(stored[0].n) === ids.length
  }, { timeoutMs, what: `${ids.length} transfers to reach a final state` })
}

/** Transfers whose expiration passed more than `graceMs` ago that are still not final. @param {import('knex').Knex} db */
async function overdueTransfers (db, graceMs = 3000) {
  return db('transfer').select('transfer_id', 'state')
    .whereNotIn('state', FINAL_STATES)
    .where('expiration', '<', db.raw('CURRENT_TIMESTAMP(3) - INTERVAL ? MICROSECOND', [graceMs * 1000]))
}

module.exports = { ledgerSums, waitAllFinal, overdueTransfers }
