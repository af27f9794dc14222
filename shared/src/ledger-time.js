'use strict'

// What the ledger can store of a participant's date-time: the FSPIOP pattern
// admits any offset up to ±23:59, so `9999-12-31T23:59:59.999-19:59` is valid
// on the wire and falls in the year 10000 in UTC, which a DATETIME(3) column
// refuses. A transfer carrying such a date must be answered with 3100, not
// reach a handler's transaction, fail it, and end in the dead-letter topic
// with the participant never told.

/** The last instant a DATETIME(3) column holds, in ms since the epoch (UTC). */
const LATEST_LEDGER_TIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

/**
 * @param {unknown} value an FSPIOP DateTime
 * @returns {{ ms: number, problem?: undefined } | { ms?: undefined, problem: string }}
 *   ms: the instant; problem: why the ledger cannot hold it (for a 3100 description):
 *   not a date, or after the last instant a DATETIME(3) column holds
 */
function ledgerTime (value) {
  const ms = typeof value === 'string' ? Date.parse(value) : NaN
  if (!Number.isFinite(ms)) return { problem: 'is not a date' }
  // Short: FSPIOP error descriptions end at 128 characters.
  if (ms > LATEST_LEDGER_TIME_MS) return { problem: `is after ${new Date(LATEST_LEDGER_TIME_MS).toISOString()}` }
  return { ms }
}

module.exports = { ledgerTime, LATEST_LEDGER_TIME_MS }
