'use strict'

// Validity gates of one step (PERF.md): a run that fails one is invalid,
// whatever its speed. Pure: the facts are gathered by ledger-facts.js.

const { FINAL } = require('../../../handlers/src/common/states')

/**
 * @typedef {object} StepFacts
 * @property {number} generated transfer ids the generator made
 * @property {number} distinctGenerated distinct ids among them
 * @property {number} accepted prepares answered 202
 * @property {number} committedCallbacks payers told COMMITTED
 * @property {Record<string, number>} byState ledger rows of the step's ids, per state
 * @property {number} rows ledger rows of the step's ids
 * @property {number} distinctRows distinct transfer ids among those rows
 * @property {number} committedStateChanges COMMITTED rows in transfer_state_change for the step's ids
 * @property {number} positionChanges participant_position_change rows of the step's COMMITTED transfers
 * @property {number} idsWithOtherThanTwoChanges committed ids without exactly two position changes
 * @property {number} repeatedStateChanges (transfer, state) pairs with more than one transfer_state_change row
 * @property {number} unpairedChangesOfOthers ids not committed with position changes, but not two (reserve and release)
 * @property {Record<string, string>} positionsBefore sum of all account values per currency
 * @property {Record<string, string>} positionsAfter
 * @property {number} nonFinalInDb transfers of the whole database not in a final state after the drain
 */

/** @param {StepFacts} f */
function evaluateGates (f) {
  const committed = f.byState.COMMITTED || 0
  const nonFinal = Object.entries(f.byState).filter(([s]) => !FINAL.has(s)).reduce((n, [, c]) => n + c, 0)
  const currencies = [...new Set([...Object.keys(f.positionsBefore), ...Object.keys(f.positionsAfter)])]
  const moved = currencies.filter((c) => normalize(f.positionsBefore[c]) !== normalize(f.positionsAfter[c]))
  const gates = [
    {
      name: 'completed = committed',
      ok: committed === f.committedCallbacks && f.committedStateChanges === committed,
      detail: `${f.committedCallbacks} COMMITTED callbacks, ${committed} COMMITTED transfers, ${f.committedStateChanges} COMMITTED state changes`
    },
    {
      name: 'positions conserved',
      ok: moved.length === 0,
      detail: moved.length
        ? moved.map((c) => `${c}: ${f.positionsBefore[c] || 0} → ${f.positionsAfter[c] || 0}`).join('; ')
        : currencies.map((c) => `${c} sum ${normalize(f.positionsAfter[c])}`).join('; ') || 'no accounts'
    },
    {
      name: 'no duplicate ledger entries',
      ok: f.distinctGenerated === f.generated && f.rows === f.distinctRows && f.idsWithOtherThanTwoChanges === 0 && f.positionChanges === 2 * committed &&
        f.repeatedStateChanges === 0 && f.unpairedChangesOfOthers === 0,
      detail: `${f.generated} ids (${f.distinctGenerated} distinct), ${f.rows} transfer rows, ${f.positionChanges} position changes of ${committed} committed transfers, ${f.idsWithOtherThanTwoChanges} with ≠ 2; ` +
        `${f.repeatedStateChanges} states recorded twice; ${f.unpairedChangesOfOthers} transfers not committed with changes other than reserve and release`
    },
    {
      name: 'nothing in flight after the drain',
      ok: nonFinal === 0 && f.nonFinalInDb === 0 && f.rows === f.accepted,
      detail: `${nonFinal} of the step's transfers not final, ${f.nonFinalInDb} in the whole database, ${f.accepted - f.rows} accepted but not in the ledger`
    }
  ]
  return { valid: gates.every((g) => g.ok), gates }
}

/** '100.0000' and '100' are the same sum. @param {string | undefined} v */
function normalize (v) {
  if (v === undefined || v === null) return '0'
  const s = String(v)
  if (!s.includes('.')) return s === '-0' ? '0' : s
  const t = s.replace(/0+$/, '').replace(/\.$/, '')
  return t === '-0' || t === '' ? '0' : t
}

module.exports = { evaluateGates, normalize }
