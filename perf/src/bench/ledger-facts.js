'use strict'

// What the ledger says about a step, for the validity gates: state of every
// transfer id the generator sent, position changes per id, the sum of all
// accounts per currency, and whatever is still in flight.

const { FINAL } = require('../../../handlers/src/common/states')

const FINAL_STATES = [...FINAL]

const CHUNK = 2000

/** @param {string[]} ids */
function chunks (ids) {
  const out = []
  for (let i = 0; i < ids.length; i += CHUNK) out.push(ids.slice(i, i + CHUNK))
  return out
}

/** Sum of every account's value per currency (positions, settlement and hub accounts). @param {import('knex').Knex} db */
async function positionSums (db) {
  const [rows] = await db.raw(`SELECT a.currency, SUM(p.value) AS total
    FROM participant_position p JOIN participant_account a ON a.account_id = p.account_id GROUP BY a.currency`)
  return Object.fromEntries(rows.map((r) => [r.currency, String(r.total)]))
}

/** Transfers anywhere in the database that are not final. @param {import('knex').Knex} db */
async function nonFinalCount (db) {
  const [rows] = await db.raw(`SELECT COUNT(*) AS n FROM transfer WHERE state NOT IN (${FINAL_STATES.map(() => '?').join(',')})`, FINAL_STATES)
  return Number(rows[0].n)
}

/**
 * Waits (polling the database, bounded) until nothing is in flight.
 * @param {import('knex').Knex} db @param {number} timeoutMs
 */
async function settle (db, timeoutMs) {
  const deadline = Date.now() + timeoutMs
  let n = await nonFinalCount(db)
  while (n > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250))
    n = await nonFinalCount(db)
  }
  return n
}

/**
 * @param {import('knex').Knex} db
 * @param {{ ids: string[], accepted: number, committedCallbacks: number, positionsBefore: Record<string, string> }} step
 * @returns {Promise<import('./gates').StepFacts>}
 */
async function stepFacts (db, { ids, accepted, committedCallbacks, positionsBefore }) {
  /** @type {Record<string, number>} */
  const byState = {}
  let rows = 0
  let distinctRows = 0
  let committedStateChanges = 0
  let positionChanges = 0
  let idsWithOtherThanTwoChanges = 0
  let repeatedStateChanges = 0
  let unpairedChangesOfOthers = 0
  for (const part of chunks(ids)) {
    const marks = part.map(() => '?').join(',')
    const [states] = await db.raw(`SELECT state, COUNT(*) AS n, COUNT(DISTINCT transfer_id) AS d FROM transfer WHERE transfer_id IN (${marks}) GROUP BY state`, part)
    for (const r of states) { byState[r.state] = (byState[r.state] || 0) + Number(r.n); rows += Number(r.n); distinctRows += Number(r.d) }
    const [[sc]] = await db.raw(`SELECT COUNT(*) AS n FROM transfer_state_change WHERE state = 'COMMITTED' AND transfer_id IN (${marks})`, part)
    committedStateChanges += Number(sc.n)
    const [changes] = await db.raw(`SELECT c.transfer_id, COUNT(*) AS n FROM participant_position_change c
      JOIN transfer t ON t.transfer_id = c.transfer_id AND t.state = 'COMMITTED'
      WHERE c.transfer_id IN (${marks}) GROUP BY c.transfer_id`, part)
    positionChanges += changes.reduce((n, r) => n + Number(r.n), 0)
    const committedHere = states.filter((r) => r.state === 'COMMITTED').reduce((n, r) => n + Number(r.n), 0)
    idsWithOtherThanTwoChanges += changes.filter((r) => Number(r.n) !== 2).length + (committedHere - changes.length)
    // A transfer passes through each state once: a second row of one state is a duplicate entry.
    const [[repeated]] = await db.raw(`SELECT COUNT(*) AS n FROM (SELECT transfer_id, state FROM transfer_state_change
      WHERE transfer_id IN (${marks}) GROUP BY transfer_id, state HAVING COUNT(*) > 1) x`, part)
    repeatedStateChanges += Number(repeated.n)
    // One that ended other than committed was never reserved (no change) or
    // reserved and released (two); one still in flight is the next gate's.
    const ended = FINAL_STATES.filter((st) => st !== 'COMMITTED')
    const [[unpaired]] = await db.raw(`SELECT COUNT(*) AS n FROM (SELECT c.transfer_id FROM participant_position_change c
      JOIN transfer t ON t.transfer_id = c.transfer_id AND t.state IN (${ended.map(() => '?').join(',')})
      WHERE c.transfer_id IN (${marks}) GROUP BY c.transfer_id HAVING COUNT(*) <> 2) x`, [...ended, ...part])
    unpairedChangesOfOthers += Number(unpaired.n)
  }
  return {
    generated: ids.length,
    distinctGenerated: new Set(ids).size,
    accepted,
    committedCallbacks,
    byState,
    rows,
    distinctRows,
    committedStateChanges,
    positionChanges,
    idsWithOtherThanTwoChanges,
    repeatedStateChanges,
    unpairedChangesOfOthers,
    positionsBefore,
    positionsAfter: await positionSums(db),
    nonFinalInDb: await nonFinalCount(db)
  }
}

/**
 * Callbacks an earlier run left PENDING (an interrupted campaign, a killed
 * run) are recorded as FAILED: the next run's notification handler would
 * otherwise take them over and retry them, for minutes, against simulated
 * participants that are gone — CPU that belongs to no run (an interrupted
 * experiment's 82,000 of them cost later runs a quarter of the handler
 * process). Only ever called on the benchmark's own database, under its lock.
 * @param {import('knex').Knex} db
 * @returns {Promise<number>} how many
 */
async function failLeftoverCallbacks (db) {
  const [result] = await db.raw("UPDATE callback SET status = 'FAILED', claim_until = NULL, last_error = 'left pending by an earlier benchmark run' WHERE status = 'PENDING'")
  return result.affectedRows
}

module.exports = { positionSums, settle, stepFacts, failLeftoverCallbacks }
