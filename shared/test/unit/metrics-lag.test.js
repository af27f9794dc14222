'use strict'

// Lag from what the broker answers (the shapes of kafkajs's
// admin.fetchTopicOffsets and admin.fetchOffsets).

const { toLagRows } = require('../../src/metrics/consumer-lag')

const ends = new Map([
  ['p.notification', [{ partition: 0, offset: '120', high: '120', low: '0' }, { partition: 1, offset: '80', high: '80', low: '20' }]],
  ['p.other', [{ partition: 0, offset: '5', high: '5', low: '0' }]]
])

test('lag is the log end minus the committed offset, per partition', () => {
  const committed = [{ topic: 'p.notification', partitions: [{ partition: 0, offset: '100' }, { partition: 1, offset: '80' }] }]
  expect(toLagRows('g', ends, committed)).toEqual([
    { group: 'g', topic: 'p.notification', partition: 0, lag: 20 },
    { group: 'g', topic: 'p.notification', partition: 1, lag: 0 }
  ])
})

test('a partition never committed counts from the start of its log', () => {
  const committed = [{ topic: 'p.notification', partitions: [{ partition: 0, offset: '-1' }] }]
  expect(toLagRows('g', ends, committed)).toEqual([
    { group: 'g', topic: 'p.notification', partition: 0, lag: 120 },
    // Not in the answer at all: also never committed; records below `low` were deleted by retention.
    { group: 'g', topic: 'p.notification', partition: 1, lag: 60 }
  ])
})

test('a topic the broker did not describe has no rows; lag is never negative', () => {
  expect(toLagRows('g', ends, [{ topic: 'p.missing', partitions: [{ partition: 0, offset: '3' }] }])).toEqual([])
  expect(toLagRows('g', ends, [{ topic: 'p.other', partitions: [{ partition: 0, offset: '9' }] }])).toEqual([
    { group: 'g', topic: 'p.other', partition: 0, lag: 0 }
  ])
})
