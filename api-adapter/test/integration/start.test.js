'use strict'

// What a new user sees: `npm start` brings up the stack and every service,
// prints where the API is, and /health reports Kafka and MySQL connected;
// SIGTERM shuts down cleanly.

const { startProcess } = require('../../../test/support/processes')

test('npm start serves /health with broker and datastore OK, and stops cleanly on SIGTERM', async () => {
  const app = startProcess('scripts/start.js', [], { API_PORT: '0', ADMIN_PORT: '0', HANDLERS: 'all' })
  try {
    const [, url] = await app.waitForOutput(/FSPIOP API\s+(http:\/\/\S+)/)
    const res = await fetch(`${url}/health`)
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body).toMatchObject({
      status: 'OK',
      versionNumber: expect.any(String),
      services: [{ name: 'broker', status: 'OK' }, { name: 'datastore', status: 'OK' }]
    })
  } finally {
    expect(await app.stop()).toEqual({ code: 0, signal: null })
  }
})

test('/health answers 502 and names the datastore when MySQL is unreachable', async () => {
  const app = startProcess('api-adapter/src/server.js', [], { API_PORT: '0', ADMIN_PORT: '0', LOG_LEVEL: 'info', DB_PORT: '1', STACK: 'off' })
  try {
    const [, url] = await app.waitForOutput(/"url":"(http:\/\/[^"]+)"/)
    const res = await fetch(`${url}/health`)
    expect(res.status).toBe(502)
    expect((await res.json()).services).toEqual([{ name: 'broker', status: 'OK' }, { name: 'datastore', status: 'DOWN' }])
  } finally {
    await app.stop()
  }
})
