'use strict'

// Ports for the processes a campaign starts. A port the kernel hands out for
// listen(0) comes from the ephemeral range (ip_local_port_range), the same
// range every outgoing connection takes its local port from; between the
// moment it is found free and the moment the child process binds it, the
// Kafka admin client, a MariaDB connection or an HTTP keep-alive socket can
// take it, and the child fails with EADDRINUSE (one campaign in a few dozen
// did). So ports are picked below that range, where the kernel never puts an
// outgoing connection, and checked by binding them; only another program
// listening on purpose could still take one.

const fs = require('node:fs')
const net = require('node:net')

const RANGE_FILE = '/proc/sys/net/ipv4/ip_local_port_range'

/**
 * The kernel's ephemeral range, or null where it cannot be read (not Linux).
 * @param {string} [file] @returns {{ low: number, high: number } | null}
 */
function ephemeralRange (file = RANGE_FILE) {
  try {
    const [low, high] = fs.readFileSync(file, 'utf8').trim().split(/\s+/).map(Number)
    return low > 0 && high >= low ? { low, high } : null
  } catch {
    return null
  }
}

/**
 * Whether `port` can be listened on now; resolves the port bound (`0`: any).
 * @param {number} port @returns {Promise<number | null>}
 */
function tryListen (port) {
  return new Promise((resolve) => {
    const s = net.createServer()
    s.once('error', () => resolve(null))
    s.listen(port, '127.0.0.1', () => {
      const bound = /** @type {net.AddressInfo} */ (s.address()).port
      s.close(() => resolve(bound))
    })
  })
}

/**
 * @param {{ range?: { low: number, high: number } | null, random?: () => number, attempts?: number }} [opts]
 */
function createPortPicker ({ range = ephemeralRange(), random = Math.random, attempts = 200 } = {}) {
  /** Ports given out by this picker: never twice. */
  const given = new Set()
  // Below the ephemeral range, above the well-known ports and what daemons commonly use.
  const high = range ? range.low - 1 : 0
  const low = Math.max(10000, high - 10000)
  const usable = range && high - low >= 100

  /** A port nobody listens on right now, outside the ephemeral range where it can. @returns {Promise<number>} */
  async function freePort () {
    if (usable) {
      for (let i = 0; i < attempts; i++) {
        const port = low + Math.floor(random() * (high - low + 1))
        if (given.has(port)) continue
        if (await tryListen(port)) {
          given.add(port)
          return port
        }
      }
    }
    // Not Linux, or no room below the range: what the kernel offers.
    for (;;) {
      const port = await tryListen(0)
      if (port && !given.has(port)) {
        given.add(port)
        return port
      }
    }
  }

  return { freePort }
}

module.exports = { createPortPicker, ephemeralRange }
