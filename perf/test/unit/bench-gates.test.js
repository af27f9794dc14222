'use strict'

const { evaluateGates, normalize } = require('../../src/bench/gates')

/** Facts of a clean step of 100 transfers. */
const clean = () => ({
  generated: 100,
  distinctGenerated: 100,
  accepted: 100,
  committedCallbacks: 100,
  byState: { COMMITTED: 100 },
  rows: 100,
  distinctRows: 100,
  committedStateChanges: 100,
  positionChanges: 200,
  idsWithOtherThanTwoChanges: 0,
  repeatedStateChanges: 0,
  unpairedChangesOfOthers: 0,
  positionsBefore: { USD: '0.0000', EUR: '12.5000' },
  positionsAfter: { USD: '0', EUR: '12.5' },
  nonFinalInDb: 0
})

const failed = (facts) => evaluateGates(facts).gates.filter((g) => !g.ok).map((g) => g.name)

describe('validity gates', () => {
  it('pass a clean step', () => {
    const { valid, gates } = evaluateGates(clean())
    expect(valid).toBe(true)
    expect(gates).toHaveLength(4)
  })

  it('fail when callbacks and committed rows disagree', () => {
    expect(failed({ ...clean(), committedCallbacks: 99 })).toEqual(['completed = committed'])
    expect(failed({ ...clean(), committedStateChanges: 101 })).toEqual(['completed = committed'])
  })

  it('fail when the sum of positions of a currency moved', () => {
    expect(failed({ ...clean(), positionsAfter: { USD: '1.0000', EUR: '12.5' } })).toEqual(['positions conserved'])
    expect(failed({ ...clean(), positionsAfter: { USD: '0' } })).toEqual(['positions conserved'])
  })

  it('fail on duplicate ids or ledger entries', () => {
    expect(failed({ ...clean(), distinctGenerated: 99 })).toEqual(['no duplicate ledger entries'])
    expect(failed({ ...clean(), positionChanges: 201, idsWithOtherThanTwoChanges: 1 })).toEqual(['no duplicate ledger entries'])
    // A state recorded twice, or an aborted transfer released twice, whatever the committed ones say.
    expect(failed({ ...clean(), repeatedStateChanges: 1 })).toEqual(['no duplicate ledger entries'])
    expect(failed({ ...clean(), byState: { COMMITTED: 99, ABORTED_ERROR: 1 }, committedCallbacks: 99, committedStateChanges: 99, positionChanges: 198, unpairedChangesOfOthers: 1 }))
      .toEqual(['no duplicate ledger entries'])
  })

  it('fail when anything is still in flight after the drain', () => {
    expect(failed({ ...clean(), byState: { COMMITTED: 99, RESERVED: 1 }, committedCallbacks: 99, committedStateChanges: 99, positionChanges: 198 })).toEqual(['nothing in flight after the drain'])
    expect(failed({ ...clean(), nonFinalInDb: 3 })).toEqual(['nothing in flight after the drain'])
    expect(failed({ ...clean(), rows: 99, distinctRows: 99, byState: { COMMITTED: 99 }, committedCallbacks: 99, committedStateChanges: 99, positionChanges: 198 })).toEqual(['nothing in flight after the drain'])
  })

  it('count aborted transfers as final', () => {
    const facts = { ...clean(), byState: { COMMITTED: 98, ABORTED_ERROR: 2 }, committedCallbacks: 98, committedStateChanges: 98, positionChanges: 196 }
    expect(evaluateGates(facts).valid).toBe(true)
  })

  it('compares decimal sums by value', () => {
    expect(normalize('100.0000')).toBe('100')
    expect(normalize('-0.0000')).toBe('0')
    expect(normalize('0.5000')).toBe('0.5')
    expect(normalize(undefined)).toBe('0')
  })
})
