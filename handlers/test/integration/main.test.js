'use strict'

const { startProcess } = require('../../../test/support/processes')

test('a handler process runs alone and serves /health on HEALTH_PORT', async () => {
  const proc = startProcess('handlers/src/main.js', [], { HEALTH_PORT: '0', LOG_LEVEL: 'info', HANDLERS: 'all' })
  try {
    const [, url] = await proc.waitForOutput(/"health":"(http:\/\/[^"]+)"/)
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
