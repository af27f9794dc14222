'use strict'

// The pacer waits only when waiting collects records.

const { createPacer } = require('../../src/kafka/pacer')

function clockedPacer (opts) {
  let t = 1000
  const pacer = createPacer({ ...opts, now: () => t })
  return { pacer, at: (ms) => { t = ms } }
}

test('sparse records (one transfer crossing the pipeline) never wait', () => {
  const { pacer, at } = clockedPacer({ lingerMs: 4 })
  for (let i = 0; i < 20; i++) { at(1000 + i * 15); pacer.observe(1, 1000 + i * 15) }
  expect(pacer.lingerMs()).toBe(0)
})

test('a steady stream of small transactions starts them lingerMs apart', () => {
  const { pacer, at } = clockedPacer({ lingerMs: 8 })
  // 600 records/s arriving, a transaction every 3 ms with ~2 records.
  for (let i = 0; i < 20; i++) { at(1000 + i * 3); pacer.observe(2, 1000 + i * 3) }
  expect(pacer.rate).toBeCloseTo(0.667, 2)
  // The last transaction started at 1057 and took 2 ms: wait until 1065.
  at(1059)
  expect(pacer.lingerMs()).toBe(6)
})

test('it waits only as long as the target batch takes to arrive', () => {
  const { pacer, at } = clockedPacer({ lingerMs: 8 })
  // 2,000 records/s: 8 records take 4 ms.
  for (let i = 0; i < 20; i++) { at(1000 + i * 3); pacer.observe(6, 1000 + i * 3) }
  at(1058)
  expect(pacer.lingerMs()).toBeCloseTo(3, 5)
})

test('large transactions (high load) never wait', () => {
  const { pacer, at } = clockedPacer({ lingerMs: 8 })
  for (let i = 0; i < 20; i++) { at(1000 + i * 5); pacer.observe(20, 1000 + i * 5) }
  at(1096)
  expect(pacer.lingerMs()).toBe(0)
})

test('after a transaction longer than the linger there is nothing to wait for', () => {
  const { pacer, at } = clockedPacer({ lingerMs: 8 })
  for (let i = 0; i < 20; i++) { at(1000 + i * 3); pacer.observe(2, 1000 + i * 3) }
  at(1057 + 12)
  expect(pacer.lingerMs()).toBe(0)
})

test('a linger of 0 turns pacing off', () => {
  const { pacer, at } = clockedPacer({ lingerMs: 0 })
  for (let i = 0; i < 20; i++) { at(1000 + i); pacer.observe(50, 1000 + i) }
  expect(pacer.lingerMs()).toBe(0)
})

test('the rate follows the load down again', () => {
  const { pacer, at } = clockedPacer({ lingerMs: 4 })
  for (let i = 0; i < 20; i++) { at(1000 + i * 3); pacer.observe(2, 1000 + i * 3) }
  for (let i = 1; i <= 20; i++) { at(1057 + i * 50); pacer.observe(1, 1057 + i * 50) }
  expect(pacer.lingerMs()).toBe(0)
})

test('a lone transfer\'s notifications (two at a time, every few ms) do not wait', () => {
  const { pacer, at } = clockedPacer({ lingerMs: 8 })
  for (let i = 0; i < 20; i++) { at(1000 + i * 6); pacer.observe(2, 1000 + i * 6) }
  expect(pacer.lingerMs()).toBe(0)
})

// One transfer every 13 ms: its notification consumer gets the forwarded
// prepare alone, then the two final notifications together 4 ms later. The
// waits the pacer asks for before each of its transactions.
function loneTransferWaits (pacer, at) {
  const waits = []
  for (let start = 1000; start < 1390; start += 13) {
    at(start); pacer.observe(1, start)
    at(start + 4); waits.push(pacer.lingerMs()); pacer.observe(2, start + 4)
    at(start + 13); waits.push(pacer.lingerMs())
  }
  return waits
}

test('at the default window a lone transfer\'s notifications (one, then two 4 ms later) never wait', () => {
  const { pacer, at } = clockedPacer({ lingerMs: 8 })
  expect(loneTransferWaits(pacer, at).filter((w) => w > 0)).toEqual([])
})

test('a 16 ms window is past the documented limit: the same notifications are held (KAFKA_LINGER_MS)', () => {
  const { pacer, at } = clockedPacer({ lingerMs: 16 })
  expect(Math.max(...loneTransferWaits(pacer, at))).toBeGreaterThan(0)
})
