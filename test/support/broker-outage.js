'use strict'

// A Kafka broker outage of a test's own, for clients in the test process:
// while installed, every connection to the broker's port goes through a TCP
// proxy that the test can take away (its connections closed, new ones
// refused, as when the broker stops) and bring back. The stack's broker
// stays up for everyone else.
//
// The clients reach the proxy because net.connect is wrapped: kafkajs
// connects with net.connect({ host, port }), and the broker's metadata sends
// a client on to the address the broker advertises, so a proxy given as the
// bootstrap address alone would soon be bypassed. Only connections opened
// with an options object naming the broker's port are redirected.

const net = require('node:net')

/**
 * @param {{ host: string, port: number }} broker
 */
async function installBrokerOutage (broker) {
  /** @type {Set<net.Socket>} the proxy's sockets, both sides */
  const proxied = new Set()
  /** @type {net.Socket[]} every socket a client opened to the broker */
  const clientSockets = []
  let attempts = 0
  let port = 0
  /** @type {net.Server | null} */
  let server = null

  const connect = net.connect
  const listen = () => new Promise((resolve, reject) => {
    const s = net.createServer((client) => {
      const upstream = connect({ host: broker.host, port: broker.port })
      proxied.add(client)
      proxied.add(upstream)
      client.pipe(upstream)
      upstream.pipe(client)
      const close = () => { client.destroy(); upstream.destroy(); proxied.delete(client); proxied.delete(upstream) }
      for (const sock of [client, upstream]) { sock.on('error', close); sock.on('close', close) }
    })
    s.once('error', reject)
    s.listen(port, '127.0.0.1', () => {
      port = /** @type {net.AddressInfo} */ (s.address()).port
      server = s
      resolve(undefined)
    })
  })
  await listen()

  /** @type {any} */
  const redirecting = function (/** @type {any[]} */ ...args) {
    const [opts] = args
    if (opts && typeof opts === 'object' && Number(opts.port) === broker.port) {
      attempts++
      const socket = connect.call(net, { ...opts, host: '127.0.0.1', port }, ...args.slice(1))
      clientSockets.push(socket)
      return socket
    }
    return connect.apply(net, /** @type {any} */ (args))
  }
  net.connect = redirecting

  return {
    /** Connections the clients have opened to the broker so far. */
    attempts: () => attempts,
    clientSockets,
    /** The broker goes away: its connections are closed, and new ones refused. */
    async down () {
      const s = server
      server = null
      const closed = s ? new Promise((resolve) => s.close(() => resolve(undefined))) : Promise.resolve()
      for (const sock of proxied) sock.destroy()
      await closed
    },
    /** The broker is back, on the same address (if it was away). */
    up: () => server ? Promise.resolve() : listen(),
    /** Takes the proxy away and stops redirecting. */
    async uninstall () {
      net.connect = connect
      const s = server
      server = null
      for (const sock of proxied) sock.destroy()
      if (s) await new Promise((resolve) => s.close(() => resolve(undefined)))
    }
  }
}

module.exports = { installBrokerOutage }
