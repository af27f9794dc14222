'use strict'

const { createPoller } = require('../../src/common/poller')

/** A poller of 'test sweep' that retries at once. @param {any} log @param {() => Promise<number>} tick @param {object} [more] */
const sweep = (log, tick, more = {}) => createPoller({ logger: log, what: 'test sweep', errorDelayMs: 1, tick, ...more })

/** A promise and what resolves it. */
const signal = () => {
  let done = () => {}
  const finished = new Promise((resolve) => { done = () => resolve(undefined) })
  return { finished, done: () => done() }
}

const logger = () => {
  const warnings = []
  const infos = []
  return { warnings, infos, warn: (obj, msg) => warnings.push([obj.err.message, msg]), info: (obj, msg) => infos.push(msg) }
}

test('ticks one at a time, after the delay each asks for; a failed tick is logged and tried again', async () => {
  const log = logger()
  const calls = []
  const { finished, done } = signal()
  const poller = sweep(log, async () => {
    calls.push(calls.length)
    if (calls.length === 2) throw new Error('db away')
    if (calls.length === 4) done()
    return 0
  })
  poller.start()
  await finished
  await poller.stop()
  expect(calls).toEqual([0, 1, 2, 3])
  expect(log.warnings).toEqual([['db away', 'test sweep failed; will try again']])
  expect(poller.running).toBe(false)
})

test('stop() waits for the tick in progress', async () => {
  let release = () => {}
  let started = () => {}
  const inTick = new Promise((resolve) => { started = resolve })
  let ticks = 0
  let finished = false
  const poller = createPoller({
    logger: /** @type {any} */ (logger()),
    what: 'test sweep',
    errorDelayMs: 1,
    tick: async () => {
      ticks++
      started()
      await new Promise((resolve) => { release = resolve })
      finished = true
      return 0
    }
  })
  poller.start()
  await inTick
  const stopping = poller.stop()
  release()
  await stopping
  expect([ticks, finished, poller.running]).toEqual([1, true, false])
})

test('failures in a row are logged once, then once per logEveryMs with their count, and the first tick that works says so', async () => {
  const log = logger()
  let clock = 0
  let calls = 0
  const { finished, done } = signal()
  const poller = sweep(log, async () => {
    calls++
    clock += 100
    // Twenty-five failures in a row, 100 ms apart, then one that works.
    if (calls <= 25) throw new Error('db away')
    done()
    return 60000
  }, { logEveryMs: 1000, now: () => clock })
  poller.start()
  await finished
  await poller.stop()
  expect(log.warnings).toEqual([
    ['db away', 'test sweep failed; will try again'],
    ['db away', 'test sweep has failed 11 times in a row; will try again'],
    ['db away', 'test sweep has failed 21 times in a row; will try again']
  ])
  expect(log.infos).toEqual(['test sweep works again after 25 failed tries'])
})
