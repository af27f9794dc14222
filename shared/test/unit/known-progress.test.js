'use strict'

const { createKnownProgress } = require('../../src/kafka/known-progress')

test('knows a partition only after a chunk it applied there, and only for records after it', () => {
  const known = createKnownProgress()
  expect(known.freshAfter('t:0', 5n)).toBeUndefined()
  known.applied('t:0', 9n, known.generation())
  expect(known.freshAfter('t:0', 10n)).toBe(9n)
  expect(known.freshAfter('t:0', 9n)).toBeUndefined() // a redelivery: the database says what it was
  expect(known.freshAfter('t:1', 10n)).toBeUndefined()
  known.applied('t:0', 7n, known.generation()) // never goes back
  expect(known.freshAfter('t:0', 8n)).toBeUndefined()
  expect(known.freshAfter('t:0', 10n)).toBe(9n)
})

test('a (re)join of the group forgets everything, and a chunk that started before it records nothing', () => {
  const known = createKnownProgress()
  known.applied('t:0', 9n, known.generation())
  const startedBefore = known.generation()
  known.newGeneration()
  expect(known.freshAfter('t:0', 10n)).toBeUndefined()
  known.applied('t:0', 12n, startedBefore)
  expect(known.freshAfter('t:0', 13n)).toBeUndefined()
  known.applied('t:0', 12n, known.generation())
  expect(known.freshAfter('t:0', 13n)).toBe(12n)
})

test('a failed transaction forgets its partition', () => {
  const known = createKnownProgress()
  known.applied('t:0', 9n, known.generation())
  known.applied('t:1', 4n, known.generation())
  known.forget('t:0')
  expect(known.freshAfter('t:0', 10n)).toBeUndefined()
  expect(known.freshAfter('t:1', 5n)).toBe(4n)
})
