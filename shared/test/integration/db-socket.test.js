'use strict'

// DB_SOCKET: the local server over its Unix socket instead of loopback TCP
// (what npm start and the benchmark use for the stack's own MariaDB).

const { testConfig } = require('../../../test/support/config')
const { createDb } = require('../../src/db')
const { stackPaths, localServices } = require('../../../scripts/stack/paths')
const { socketPath } = require('../../../scripts/stack/mariadb')

const config = testConfig()
const local = localServices(config)

test('with DB_SOCKET set, connections go over the socket; without, over TCP', async () => {
  expect(local.mariadb).toBeTruthy()
  const socket = socketPath(stackPaths(config), local.mariadb.port)
  const overSocket = createDb({ ...config, DB_SOCKET: socket })
  const overTcp = createDb({ ...config, DB_SOCKET: '' })
  try {
    const [[viaSocket]] = await overSocket.raw('SELECT USER() AS who, DATABASE() AS db')
    const [[viaTcp]] = await overTcp.raw('SELECT USER() AS who')
    expect(viaSocket).toEqual({ who: `${config.DB_USER}@localhost`, db: config.DB_NAME })
    expect(viaTcp.who).toBe(`${config.DB_USER}@127.0.0.1`)
  } finally {
    await Promise.all([overSocket.destroy(), overTcp.destroy()])
  }
})
