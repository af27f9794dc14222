'use strict'

// Several commands written to a MariaDB connection at once and answered in
// order (pipelining): text queries and executions of server-side prepared
// statements. mysql2 sends a command only once the one before it has been
// answered, so this writes every command's packet itself, then queues mysql2
// command objects that read the answers without writing again.
//
// A measuring instrument for sql-forms.js, not part of the switch: it relies
// on mysql2's internals (its packet and command classes and its sequence id),
// and a pipeline that writes must guard its COMMIT (docs/performance.md,
// thirty-first round), which is the caller's business here.

const path = require('node:path')

// Not among mysql2's exports: reached by path, in the copy the switch uses.
const mysql2Dir = path.dirname(require.resolve('mysql2', { paths: [path.join(__dirname, '..', '..', '..', 'shared')] }))
const mysql2Lib = (/** @type {string} */ file) => require(path.join(mysql2Dir, 'lib', file))
const Packets = mysql2Lib('packets/index.js')
const Commands = mysql2Lib('commands/index.js')
const ConnectionConfig = mysql2Lib('connection_config.js')

/**
 * The server-side prepared statement for `sql` on this connection (mysql2's
 * per-connection cache, or a round trip to prepare it).
 * @param {any} conn a mysql2 connection (callback API) @param {string} sql
 * @returns {Promise<any>}
 */
const prepared = (conn, sql) => new Promise((resolve, reject) => {
  conn.prepare({ sql }, (/** @type {any} */ err, /** @type {any} */ statement) => (err ? reject(err) : resolve(statement)))
})

/**
 * The answer is read as mysql2 reads it; the packet was written already, so
 * the command starts where its own start() would leave it.
 * @param {any} command @param {'_queryOptions' | '_executeOptions'} optionsKey @param {Function} firstState
 */
function answerOnly (command, optionsKey, firstState) {
  command.start = function (/** @type {any} */ _packet, /** @type {any} */ connection) {
    this._connection = connection
    this.options = ConnectionConfig.queryOptions(connection.config, this[optionsKey])
    // What writePacket() would have left: the request was packet 0.
    connection.sequenceId = 1
    return firstState
  }
  return command
}

/**
 * Sends the commands in one write and resolves with each one's outcome, in
 * order: `{ result }` or `{ error }` (a failed command does not stop the
 * server from running the ones after it).
 * @param {any} conn a mysql2 connection with no command in progress
 * @param {{ sql: string, bindings: readonly any[], prepare?: boolean }[]} commands
 *   prepare: as a prepared statement (binary protocol); otherwise a text query
 * @returns {Promise<({ result: any } | { error: any })[]>}
 */
async function pipeline (conn, commands) {
  // Preparing takes a round trip for a statement this connection has not seen.
  const statements = []
  for (const c of commands) statements.push(c.prepare ? await prepared(conn, c.sql) : null)
  const clientFlags = conn.config.clientFlags & (conn.serverCapabilityFlags || 0)
  /** @type {Buffer[]} */
  const packets = []
  /** @type {any[]} */
  const queued = []
  const outcomes = commands.map((c, i) => new Promise((resolve) => {
    const done = (/** @type {any} */ error, /** @type {any} */ result) => resolve(error ? { error } : { result })
    const statement = statements[i]
    let packet
    if (statement) {
      packet = new Packets.Execute(statement.id, c.bindings, conn.config.charsetNumber, conn.config.timezone, undefined,
        clientFlags, conn._isMariaDB, statement.parameters).toPacket()
      queued.push(answerOnly(new Commands.Execute({ statement, sql: c.sql, values: c.bindings }, done), '_executeOptions', Commands.Execute.prototype.resultsetHeader))
    } else {
      const sql = c.bindings.length ? conn.format(c.sql, c.bindings) : c.sql
      packet = new Packets.Query(sql, conn.config.charsetNumber, undefined, clientFlags).toPacket()
      queued.push(answerOnly(new Commands.Query({ sql, values: [] }, done), '_queryOptions', Commands.Query.prototype.resultsetHeader))
    }
    packet.writeHeader(0)
    packets.push(packet.buffer)
  }))
  conn.write(Buffer.concat(packets))
  for (const command of queued) conn.addCommand(command)
  return Promise.all(outcomes)
}

module.exports = { pipeline }
