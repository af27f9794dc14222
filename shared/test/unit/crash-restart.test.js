'use strict'

// A consumer that kafkajs does not restart after a crash is run again
// (crash-restart.js), with a growing backoff, and never once stopping.

const { EventEmitter } = require('node:events')
const pino = require('pino')
const { restartCrashedConsumer } = require('../../src/kafka/crash-restart')

const events = { CRASH: 'consumer.crash', GROUP_JOIN: 'consumer.group_join' }

function setup ({ stopping = () => false } = {}) {
  const emitter = new EventEmitter()
  const runs = []
  const timers = []
  const consumer = {
    events,
    on: (event, listener) => emitter.on(event, listener),
    run: async (config) => { runs.push(config) }
  }
  const runConfig = { eachBatch: async () => {} }
  restartCrashedConsumer({
    consumer,
    runConfig,
    isStopping: stopping,
    backoffMs: 200,
    logger: pino({ level: 'silent' }),
    setTimer: (fn, ms) => timers.push({ fn, ms })
  })
  const crash = (restart) => emitter.emit(events.CRASH, { payload: { error: new Error('broker away'), restart } })
  return { emitter, runs, timers, runConfig, crash }
}

test('a crash kafkajs restarts itself is left to kafkajs', () => {
  const { runs, timers, crash } = setup()
  crash(true)
  expect(timers).toEqual([])
  expect(runs).toEqual([])
})

test('a crash kafkajs does not restart: run again with the same configuration, later after each crash in a row', async () => {
  const { runs, timers, runConfig, crash, emitter } = setup()
  crash(false)
  expect(timers).toHaveLength(1)
  timers[0].fn()
  await Promise.resolve()
  expect(runs).toEqual([runConfig])
  // Starting failed again: the next try waits longer (jitter within 50–100% of the doubled delay).
  crash(false)
  crash(false)
  expect(timers[1].ms).toBeGreaterThanOrEqual(200)
  expect(timers[2].ms).toBeGreaterThanOrEqual(400)
  // Once it has joined its group again, the next crash starts from the shortest delay.
  emitter.emit(events.GROUP_JOIN, {})
  crash(false)
  expect(timers[3].ms).toBeLessThanOrEqual(200)
})

test('nothing restarts once the consumer is stopping, even a restart already scheduled', async () => {
  let stopping = false
  const { runs, timers, crash } = setup({ stopping: () => stopping })
  crash(false)
  stopping = true
  timers[0].fn()
  crash(false)
  await Promise.resolve()
  expect(runs).toEqual([])
  expect(timers).toHaveLength(1)
})
