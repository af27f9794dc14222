'use strict'

// GET /livez answers while the process runs, whatever Kafka and MySQL do:
// Kubernetes' liveness probe must not restart pods for an outage they wait out.

const { buildApp } = require('../../src/app')
const { testConfig } = require('../../../test/support/config')
const { createLogger } = require('../../../shared/src/logger')
const { listen } = require('../support/http')

test('/livez is 200 while /health is 502 with the broker and the datastore down', async () => {
  const config = testConfig()
  const down = { status: 'DOWN', uptime: 1, startTime: new Date().toISOString(), versionNumber: '0', services: [{ name: 'broker', status: 'DOWN' }, { name: 'datastore', status: 'DOWN' }] }
  const app = buildApp({ config, logger: createLogger(config), health: async () => down })
  try {
    const client = await listen(app)
    expect((await client.request({ url: '/health' })).statusCode).toBe(502)
    const live = await client.request({ url: '/livez' })
    expect([live.statusCode, live.json()]).toEqual([200, { status: 'OK' }])
  } finally {
    await app.close()
  }
})
