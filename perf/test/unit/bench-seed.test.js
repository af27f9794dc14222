'use strict'

const crypto = require('node:crypto')
const { buildBatch, positionsUpdate, decimal, spreadUuid } = require('../../src/bench/seed-rows')

describe('seeded ledger rows', () => {
  it('writes scaled integers as exact DECIMAL(18,4) literals', () => {
    expect(decimal(0)).toBe('0.0000')
    expect(decimal(1234567)).toBe('123.4567')
    expect(decimal(-100)).toBe('-0.0100')
  })

  it('makes version 4 UUIDs that rise with the transfer and cover the whole id space, as random ids do', () => {
    const total = 10e6
    const idsOf = (from) => {
      const participants = [1, 2].map((i) => ({ name: `p${i}`, positionAccountId: i }))
      const b = buildBatch({ from, count: 100, total, startMs: 0, spanMs: 1000, currency: 'USD', participants, running: { values: new Map() } })
      return [...b.statements[0].matchAll(/\('([0-9a-f-]{36})'/g)].map((m) => m[1])
    }
    const first = idsOf(0)
    const last = idsOf(total - 100)
    const all = [...first, ...last]
    for (const id of all) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect([...all].sort()).toEqual(all)
    const top = (id) => parseInt(id.slice(0, 8), 16)
    expect(top(last[last.length - 1]) - top(first[0])).toBeGreaterThan(0.99 * 2 ** 32)
    // Transfer 5 of 10 lies in the sixth tenth of the space.
    const middle = top(spreadUuid(5, 10, crypto.randomBytes(14)))
    expect(middle >= 0.5 * 2 ** 32 && middle < 0.6 * 2 ** 32).toBe(true)
  })

  it('keeps every account consistent: batch deltas sum to the running values and to zero overall', () => {
    const participants = [1, 2, 3].map((i) => ({ name: `p${i}`, positionAccountId: 10 + i }))
    const running = { values: new Map() }
    const totals = new Map()
    for (const from of [0, 50]) {
      const b = buildBatch({ from, count: 50, total: 100, startMs: 0, spanMs: 100000, currency: 'USD', participants, running })
      expect(b.rows).toBe(50 * 7)
      expect(b.statements).toHaveLength(3)
      expect(b.statements[1].match(/\('/g)).toHaveLength(200) // four state changes per transfer
      for (const [id, d] of b.deltas) totals.set(id, (totals.get(id) || 0) + d.delta)
      expect(positionsUpdate(b.deltas)).toMatch(/value = value \+ VALUES\(value\)/)
    }
    for (const [id, v] of running.values) expect(totals.get(id)).toBe(v)
    expect([...running.values.values()].reduce((a, b) => a + b, 0)).toBe(0)
    // No transfer pays itself.
    const b = buildBatch({ from: 0, count: 300, total: 300, startMs: 0, spanMs: 1, currency: 'USD', participants, running: { values: new Map() } })
    for (const row of b.statements[0].split('),(')) {
      const [, payer, payee] = row.match(/'[^']+','([^']+)','([^']+)'/)
      expect(payer).not.toBe(payee)
    }
  })
})
