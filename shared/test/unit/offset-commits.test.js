'use strict'

// Offsets are committed by interval: one request for every partition that
// moved, the newest offset of each, never an older one after a newer one.

const { createOffsetCommits } = require('../../src/kafka/offset-commits')

const quiet = { warn: () => {} }

function recorder ({ fail = 0 } = {}) {
  const sent = []
  let failures = fail
  return {
    sent,
    async commit (offsets) {
      sent.push(offsets)
      if (failures > 0) { failures--; throw new Error('coordinator away') }
    }
  }
}

beforeEach(() => jest.useFakeTimers())
afterEach(() => jest.useRealTimers())

test('finished chunks are committed together once per interval, the newest offset of each partition', async () => {
  const r = recorder()
  const commits = createOffsetCommits({ commit: (o) => r.commit(o), intervalMs: 200, logger: quiet })
  commits.done('t', 0, 5n)
  commits.done('t', 1, 3n)
  commits.done('t', 0, 9n)
  commits.done('t', 0, 7n) // an older note never moves an offset back
  expect(r.sent).toHaveLength(0)
  await jest.advanceTimersByTimeAsync(199)
  expect(r.sent).toHaveLength(0)
  await jest.advanceTimersByTimeAsync(1)
  expect(r.sent).toEqual([[{ topic: 't', partition: 0, offset: '9' }, { topic: 't', partition: 1, offset: '3' }]])

  // Nothing new, nothing sent; a partition that moves again is sent alone.
  await jest.advanceTimersByTimeAsync(1000)
  commits.done('t', 1, 4n)
  await jest.advanceTimersByTimeAsync(200)
  expect(r.sent).toHaveLength(2)
  expect(r.sent[1]).toEqual([{ topic: 't', partition: 1, offset: '4' }])
  expect(commits.pendingCount()).toBe(0)

  // A chunk that finishes below what is committed (inside a re-emitted
  // stored range) never moves the committed offset back.
  commits.done('t', 0, 6n)
  expect(commits.pendingCount()).toBe(0)
  await jest.advanceTimersByTimeAsync(1000)
  expect(r.sent).toHaveLength(2)
})

test('a failed commit is tried again with the next interval, newer offsets winning', async () => {
  const r = recorder({ fail: 1 })
  const commits = createOffsetCommits({ commit: (o) => r.commit(o), intervalMs: 100, logger: quiet })
  commits.done('t', 0, 5n)
  commits.done('t', 1, 2n)
  await jest.advanceTimersByTimeAsync(100)
  expect(r.sent).toHaveLength(1)
  commits.done('t', 0, 8n)
  await jest.advanceTimersByTimeAsync(100)
  expect(r.sent[1]).toEqual([{ topic: 't', partition: 0, offset: '8' }, { topic: 't', partition: 1, offset: '2' }])
  expect(commits.pendingCount()).toBe(0)
})

test('a flush waits for the commit in flight, so an older offset never overtakes a newer one', async () => {
  const order = []
  /** @type {(() => void)[]} */
  const answers = []
  const commit = (offsets) => new Promise((resolve) => { order.push(offsets[0].offset); answers.push(resolve) })
  const commits = createOffsetCommits({ commit, intervalMs: 100, logger: quiet })
  commits.done('t', 0, 1n)
  const first = commits.flush()
  await jest.advanceTimersByTimeAsync(0)
  expect(order).toEqual(['1'])
  commits.done('t', 0, 2n)
  const second = commits.flush()
  await jest.advanceTimersByTimeAsync(0)
  expect(order).toEqual(['1']) // the second waits for the first's answer
  answers[0]()
  await first
  await jest.advanceTimersByTimeAsync(0)
  expect(order).toEqual(['1', '2'])
  answers[1]()
  await second
})

test('close commits what is noted at once, and gives up after its timeout', async () => {
  const r = recorder()
  const commits = createOffsetCommits({ commit: (o) => r.commit(o), intervalMs: 60000, logger: quiet })
  commits.done('t', 3, 42n)
  await commits.close()
  expect(r.sent).toEqual([[{ topic: 't', partition: 3, offset: '42' }]])

  const warnings = []
  const stuck = createOffsetCommits({ commit: () => new Promise(() => {}), intervalMs: 60000, logger: { warn: (o, msg) => warnings.push(msg) } })
  stuck.done('t', 0, 1n)
  const closing = stuck.close(500)
  await jest.advanceTimersByTimeAsync(500)
  await closing
  expect(warnings).toEqual([expect.stringContaining('redelivered')])
})
