'use strict'

const pino = require('pino')
const { createLifecycle } = require('../../src/lifecycle')

const logger = pino({ level: 'silent' })

test('resources close in reverse order of registration, once, even if one fails', async () => {
  const closed = []
  const lifecycle = createLifecycle({ logger, timeoutMs: 1000 })
  lifecycle.add('database', () => { closed.push('database') })
  lifecycle.add('producer', async () => { closed.push('producer'); throw new Error('broker gone') })
  lifecycle.add('consumer', async () => { closed.push('consumer') })
  await Promise.all([lifecycle.shutdown('test'), lifecycle.shutdown('again')])
  expect(closed).toEqual(['consumer', 'producer', 'database'])
})

test('a second signal during the graceful stop neither kills the process nor starts a second stop', async () => {
  const before = { SIGTERM: process.listeners('SIGTERM'), SIGINT: process.listeners('SIGINT') }
  const exits = []
  let closes = 0
  /** @type {() => void} */
  let finish = () => {}
  const lifecycle = createLifecycle({ logger, timeoutMs: 60000, exit: (code) => exits.push(code) })
  lifecycle.add('slow resource', () => { closes++; return new Promise((resolve) => { finish = () => resolve(undefined) }) })
  lifecycle.installSignalHandlers()
  try {
    process.emit('SIGTERM')
    process.emit('SIGINT')
    process.emit('SIGTERM')
    // Still listening: without a listener, Node's default for the signal would end the process.
    expect(process.listenerCount('SIGTERM')).toBe(before.SIGTERM.length + 1)
    expect(closes).toBe(1)
    finish()
    await new Promise((resolve) => setImmediate(resolve))
    expect(exits).toEqual([0])
  } finally {
    for (const signal of ['SIGTERM', 'SIGINT']) {
      for (const l of process.listeners(signal)) if (!before[signal].includes(l)) process.removeListener(signal, l)
    }
  }
})

test('fail() closes everything as a signal would, then exits with 1', async () => {
  const closed = []
  const exits = []
  const lifecycle = createLifecycle({ logger, timeoutMs: 60000, exit: (code) => exits.push(code) })
  lifecycle.add('database', () => { closed.push('database') })
  lifecycle.add('consumer', async () => { closed.push('consumer') })
  await lifecycle.fail('must not run')
  expect(closed).toEqual(['consumer', 'database'])
  expect(exits).toEqual([1])
})
