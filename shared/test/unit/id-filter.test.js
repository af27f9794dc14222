'use strict'

// The duplicate filter: never "new" for an id it was given, rarely "maybe"
// for one it was not, and full filters are replaced rather than overfilled.

const crypto = require('node:crypto')
const { createIdFilter, hash32 } = require('../../src/dedupe/id-filter')

const ids = (n) => Array.from({ length: n }, () => crypto.randomUUID())

test('an id that was added is always reported as maybe seen', () => {
  const filter = createIdFilter({ capacity: 20000, errorRate: 0.001 })
  const added = ids(20000)
  for (const id of added) filter.add(id)
  expect(added.every((id) => filter.mightContain(id))).toBe(true)
})

test('new ids are "definitely new" at about the configured error rate', () => {
  const filter = createIdFilter({ capacity: 20000, errorRate: 0.001 })
  for (const id of ids(20000)) filter.add(id)
  const fresh = ids(50000)
  const falsePositives = fresh.filter((id) => filter.mightContain(id)).length
  // 0.1% expected (50); a broken hash gives thousands.
  expect(falsePositives).toBeLessThan(150)
  expect(filter.stats()).toMatchObject({ size: 20000, checks: 50000, maybes: falsePositives })
})

test('a full filter starts a new generation instead of degrading, and still knows the last one', () => {
  const filter = createIdFilter({ capacity: 1000, errorRate: 0.001 })
  const first = ids(1000)
  for (const id of first) filter.add(id)
  filter.add('one-more')
  expect(filter.stats()).toMatchObject({ size: 1, previous: true })
  expect(filter.mightContain('one-more')).toBe(true)
  // The ids of the full generation are not forgotten the moment it fills up.
  expect(first.every((id) => filter.mightContain(id))).toBe(true)
  expect(ids(5000).filter((id) => !first.includes(id) && filter.mightContain(id)).length).toBeLessThan(20)
  // Once the next generation fills up too, the oldest is let go (the primary key still catches it).
  for (const id of ids(1000)) filter.add(`second-${id}`)
  expect(first.filter((id) => filter.mightContain(id)).length).toBeLessThan(10)
})

test('the hash depends on the seed and spreads similar ids apart', () => {
  expect(hash32('transfer-1', 1)).not.toBe(hash32('transfer-1', 2))
  expect(hash32('transfer-1', 1)).not.toBe(hash32('transfer-2', 1))
  expect(hash32('x'.repeat(100), 7)).toBeLessThan(2 ** 32)
  const buckets = new Array(16).fill(0)
  for (let i = 0; i < 16000; i++) buckets[hash32(`id-${i}`, 0) % 16]++
  for (const b of buckets) expect(Math.abs(b - 1000)).toBeLessThan(150)
})
