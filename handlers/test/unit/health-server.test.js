'use strict'

const { startHealthServer } = require('../../src/health-server')

test('a handler pod answers /livez while /health reports Kafka and MySQL down', async () => {
  const server = await startHealthServer({ port: 0, host: '127.0.0.1', health: async () => ({ status: 'DOWN' }) })
  try {
    const { port } = /** @type {import('node:net').AddressInfo} */ (server.address())
    const get = async (/** @type {string} */ path) => { const res = await fetch(`http://127.0.0.1:${port}${path}`); return [res.status, await res.json()] }
    expect(await get('/health')).toEqual([502, { status: 'DOWN' }])
    expect(await get('/livez')).toEqual([200, { status: 'OK' }])
    expect((await get('/nothing'))[0]).toBe(404)
  } finally {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})
