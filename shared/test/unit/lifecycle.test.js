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
