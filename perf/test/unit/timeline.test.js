'use strict'

const { toTimeline, unionLength, spanLength } = require('../../src/analyze/timeline')

test('events are ordered by start, then the longer (enclosing) one first, then label', () => {
  // Span starts have millisecond resolution: a stage and the callback it
  // sends can start in the same millisecond, and the stage encloses it.
  const t = toTimeline([
    { label: 'c', start: 5, end: 6 },
    { label: 'b', start: 1, end: 3 },
    { label: 'a', start: 1, end: 3 },
    { label: 'd', start: 1, end: 2 }
  ])
  expect(t.map((e) => e.label)).toEqual(['a', 'b', 'd', 'c'])
  expect(t.map((e) => e.offsetMs)).toEqual([0, 0, 0, 4])
})

test('on a tie, what caused an event goes before it, whichever is longer', () => {
  const items = [
    { label: 'request', start: 1, end: 4 },
    { label: 'callback', start: 1, end: 2 },
    { label: 'later', start: 2, end: 3 }
  ]
  const caused = (a, b) => a.label === 'callback' && b.label === 'request'
  expect(toTimeline(items).map((e) => e.label)).toEqual(['request', 'callback', 'later'])
  expect(toTimeline(items, caused).map((e) => e.label)).toEqual(['callback', 'request', 'later'])
})

test('the gap before an event counts from the latest end so far, not the previous event', () => {
  // b runs inside a; c starts after b ended but while a still runs: no gap.
  // d starts 2 ms after a (the latest end) ended.
  const t = toTimeline([
    { label: 'a', start: 0, end: 10 },
    { label: 'b', start: 1, end: 2 },
    { label: 'c', start: 4, end: 5 },
    { label: 'd', start: 12, end: 13 }
  ])
  expect(t.map((e) => e.gapBeforeMs)).toEqual([0, 0, 0, 2])
  expect(t.map((e) => e.gapFrom)).toEqual([null, 'a', 'a', 'a'])
})

test('work is the union of the intervals; total is last end − first start', () => {
  const items = [{ start: 0, end: 10 }, { start: 1, end: 2 }, { start: 8, end: 12 }, { start: 15, end: 16 }, { start: 15.5, end: 15.75 }]
  expect(unionLength(items)).toBe(13)
  expect(spanLength(items)).toBe(16)
  expect(unionLength([])).toBe(0)
  expect(spanLength([])).toBe(0)
  expect(unionLength([{ start: 3, end: 3 }])).toBe(0)
})
