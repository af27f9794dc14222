'use strict'

// A TCP proxy in front of the stack's MariaDB that can lose the answer to
// one query: the query reaches the server and runs (a COMMIT in it commits),
// but the client never hears back and finds its connection gone. This is the
// ambiguous commit a real network or server failover produces, made
// deterministic: the test decides when the connection breaks, after it has
// seen the query's effects in the database.
//
// It reads the client's packets (MySQL protocol: 3-byte length, sequence
// number, payload; COM_QUERY is payload byte 0x03 followed by the SQL) and
// passes every byte on unchanged. It also keeps the text of every query that
// went through, so a test can count the round trips of a kind.

const net = require('node:net')

const COM_QUERY = 0x03

/**
 * @param {{ host: string, port: number }} server
 */
async function startDbProxy (server) {
  /** @type {Set<net.Socket>} */
  const sockets = new Set()
  /** @type {{ match: (sql: string) => boolean, held?: () => void, seen: (sql: string) => void } | null} */
  let trap = null
  /** @type {string[]} every query's SQL, in the order the server got them */
  const queries = []

  const proxy = net.createServer((client) => {
    const upstream = net.connect(server.port, server.host)
    sockets.add(client)
    sockets.add(upstream)
    let pending = Buffer.alloc(0)
    let holding = false
    client.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk])
      while (pending.length >= 4) {
        const length = pending.readUIntLE(0, 3)
        if (pending.length < 4 + length) break
        const payload = pending.subarray(4, 4 + length)
        const sql = payload[0] === COM_QUERY ? payload.subarray(1).toString('utf8') : null
        if (sql !== null) queries.push(sql)
        if (trap && !holding && sql !== null) {
          if (trap.match(sql)) {
            holding = true
            const t = trap
            trap = null
            t.held = () => { client.destroy(); upstream.destroy() }
            t.seen(sql)
          }
        }
        pending = pending.subarray(4 + length)
      }
      upstream.write(chunk)
    })
    // Once holding, the server's answers go nowhere.
    upstream.on('data', (chunk) => { if (!holding) client.write(chunk) })
    const close = () => { client.destroy(); upstream.destroy(); sockets.delete(client); sockets.delete(upstream) }
    client.on('error', close)
    upstream.on('error', close)
    client.on('close', close)
    upstream.on('close', close)
  })
  await new Promise((resolve) => proxy.listen(0, '127.0.0.1', () => resolve(undefined)))
  const { port } = /** @type {net.AddressInfo} */ (proxy.address())

  return {
    port,
    /** The SQL of every query sent through the proxy so far. @returns {string[]} */
    queries: () => [...queries],
    /**
     * Arms the proxy for the next query whose SQL matches: it is sent to the
     * server, and its answer is held back. Resolves with the SQL once it has
     * been sent, and with `breakConnection()`, which closes that connection
     * (client and server sides) without ever answering.
     * @param {(sql: string) => boolean} match
     * @returns {Promise<{ sql: string, breakConnection: () => void }>}
     */
    loseAnswerTo (match) {
      return new Promise((resolve) => {
        const t = {
          match,
          /** @type {(() => void) | undefined} */ held: undefined,
          /** @param {string} sql */
          seen: (sql) => resolve({ sql, breakConnection: () => t.held && t.held() })
        }
        trap = t
      })
    },
    async close () {
      for (const s of sockets) s.destroy()
      await new Promise((resolve) => proxy.close(() => resolve(undefined)))
    }
  }
}

module.exports = { startDbProxy }
