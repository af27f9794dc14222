'use strict'

const { createPoller } = require('../../src/common/poller')

const logger = () => {
  const warnings = []
  return { warnings, warn: (obj, msg) => warnings.push([obj.err.message, msg]) }
}

test('ticks one at a time, after the delay each asks for; a failed tick is logged and tried again', async () => {
  const log = logger()
  const calls = []
  let done = () => {}
  const finished = new Promise((resolve) => { done = resolve })
  const poller = createPoller({
    logger: /** @type {any} */ (log),
    what: 'test sweep',
    errorDelayMs: 1,
    tick: async () => {
      calls.push(calls.length)
      if (calls.length === 2) throw new Error('db away')
      if (calls.length === 4) done()
      return 0
    }
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
