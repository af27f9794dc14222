'use strict'

const { startProcess } = require('../../../test/support/processes')
const { testConfig, unique } = require('../../../test/support/config')
const { createTopics } = require('../../../scripts/stack/index')

test('a handler process runs alone and serves /health on HEALTH_PORT', async () => {
  // Topics of its own, as an operator creates them before starting handlers.
  const id = unique('main')
  const env = { KAFKA_TOPIC_PREFIX: `${id}.`, KAFKA_CLIENT_ID: id }
  await createTopics(testConfig(env))
  const proc = startProcess('handlers/src/main.js', [], { ...env, HEALTH_PORT: '0', LOG_LEVEL: 'info', HANDLERS: 'all' })
  try {
    const [, url] = await proc.waitForOutput(/"health":"(http:\/\/[^"]+)","msg":"handlers running"/)
    const res = await fetch(url)
    expect(res.status).toBe(200)
    expect((await res.json()).status).toBe('OK')
  } finally {
    expect(await proc.stop()).toEqual({ code: 0, signal: null })
  }
})

test('an unknown handler name is refused at start-up with the list of known ones', async () => {
  const proc = startProcess('handlers/src/main.js', ['nonsense'], {})
  expect((await proc.exited).code).toBe(1)
  expect(proc.output()).toMatch(/unknown handler\(s\): nonsense; known:/)
})
