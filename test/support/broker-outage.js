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
const { startTcpRelay } = require('./tcp-relay')

/**
 * @param {{ host: string, port: number }} broker
 */
async function installBrokerOutage (broker) {
  const relay = await startTcpRelay({ host: broker.host, port: broker.port })
  /** @type {net.Socket[]} every socket a client opened to the broker */
  const clientSockets = []
  let attempts = 0

  const connect = net.connect
  /** @type {any} */
  const redirecting = function (/** @type {any[]} */ ...args) {
    const [opts] = args
    if (opts && typeof opts === 'object' && Number(opts.port) === broker.port) {
      attempts++
      const socket = connect.call(net, { ...opts, host: '127.0.0.1', port: relay.port() }, ...args.slice(1))
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
    down: relay.down,
    /** The broker is back, on the same address (if it was away). */
    up: relay.up,
    /** Takes the proxy away and stops redirecting. */
    async uninstall () {
      net.connect = connect
      await relay.close()
    }
  }
}

module.exports = { installBrokerOutage }
