'use strict'

// A TCP relay in front of a server (Kafka, MariaDB) that a test can take
// away and bring back, as when the server stops and starts again: down()
// closes the relay's connections and refuses new ones, up() listens again on
// the same port. The server itself stays up for everyone else.

const net = require('node:net')

/**
 * @param {net.NetConnectOpts} upstream where the relay connects: { host, port } or { path }
 */
async function startTcpRelay (upstream) {
  // Taken now: a test may wrap net.connect afterwards to send clients here,
  // and the relay's own connections must not be sent back to it.
  const connect = net.connect
  /** @type {Set<net.Socket>} both sides of every relayed connection */
  const sockets = new Set()
  let port = 0
  /** @type {net.Server | null} */
  let server = null

  const listen = () => new Promise((resolve, reject) => {
    const s = net.createServer((client) => {
      const target = connect(upstream)
      const close = () => { client.destroy(); target.destroy(); sockets.delete(client); sockets.delete(target) }
      for (const [from, to] of [[client, target], [target, client]]) {
        sockets.add(from)
        from.on('error', close)
        from.on('close', close)
        from.pipe(to)
      }
    })
    s.once('error', reject)
    s.listen(port, '127.0.0.1', () => {
      port = /** @type {net.AddressInfo} */ (s.address()).port
      server = s
      resolve(undefined)
    })
  })
  const down = async () => {
    const s = server
    server = null
    const closed = s ? new Promise((resolve) => s.close(() => resolve(undefined))) : Promise.resolve()
    for (const sock of sockets) sock.destroy()
    await closed
  }
  await listen()

  return {
    /** The relay's port on 127.0.0.1 (the same after down() and up()). */
    port: () => port,
    /** The server goes away: the relay's connections are closed, and new ones refused. */
    down,
    /** The server is back, on the same address (if it was away). */
    up: () => server ? Promise.resolve() : listen(),
    close: down
  }
}

module.exports = { startTcpRelay }
