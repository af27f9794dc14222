'use strict'

const { createRepeatGate } = require('../../src/log-repeats')

test('a repeating message passes once per window, saying how many were left out since the last one that passed', () => {
  let clock = 0
  const pass = createRepeatGate({ windowMs: 1000, now: () => clock })
  const seen = []
  for (let i = 0; i < 25; i++) {
    seen.push(pass('Acquire connection error: connect ECONNREFUSED'))
    clock += 100
  }
  expect(seen.filter(Boolean)).toEqual([{ leftOut: 0 }, { leftOut: 9 }, { leftOut: 9 }])
  expect(seen.map((s) => s !== null).indexOf(true, 1)).toBe(10)
})

test('different messages are gated apart, and the oldest is forgotten past maxKeys', () => {
  const clock = 0
  const pass = createRepeatGate({ windowMs: 1000, now: () => clock, maxKeys: 2 })
  expect([pass('a'), pass('b'), pass('a'), pass('b')]).toEqual([{ leftOut: 0 }, { leftOut: 0 }, null, null])
  // A third key pushes out the oldest ("a"), which then passes again as new.
  expect([pass('c'), pass('a'), pass('c')]).toEqual([{ leftOut: 0 }, { leftOut: 0 }, null])
})
