'use strict'

// Several commands written to a MariaDB connection at once and answered in
// order (pipelining): text queries and executions of server-side prepared
// statements (binary protocol: the statement is parsed once per connection,
// the values travel typed instead of escaped into the SQL for the server to
// lex back). mysql2 sends a command only once the one before it has been
// answered, so this writes every command's packet itself, in one write, then
// queues mysql2 command objects that read the answers without writing again.
//
// The server runs every command it has received, whatever the one before it
// did: a pipeline that ends with COMMIT would commit after a failed write.
// Callers commit in a round trip of their own, once every answer is in
// (folded-transaction.js, DB_PREPARED_WRITES), as sql-forms.js measures
// (docs/performance.md, thirty-first round).
//
// It uses mysql2's packet and command classes and its sequence id, which are
// not among its exports, so it is tied to the mysql2 version it was written
// for (PIPELINE_MYSQL2, as client.js ties its kafkajs patches to kafkajs's).

const path = require('node:path')

/** The mysql2 version whose internals this relies on. */
const PIPELINE_MYSQL2 = '3.24.5'
const mysql2Dir = path.dirname(require.resolve('mysql2'))
const mysql2Version = require(path.join(mysql2Dir, 'package.json')).version
const supported = mysql2Version === PIPELINE_MYSQL2
const mysql2Lib = (/** @type {string} */ file) => require(path.join(mysql2Dir, 'lib', file))
const Packets = supported ? mysql2Lib('packets/index.js') : null
const Commands = supported ? mysql2Lib('commands/index.js') : null
const ConnectionConfig = supported ? mysql2Lib('connection_config.js') : null

/**
 * @typedef {{ sql: string, bindings: readonly any[], prepare?: boolean }} PipelinedCommand
 *   prepare: sent as a prepared statement (binary protocol); otherwise as a text query
 * @typedef {{ result: any } | { error: any }} Outcome
 */

/** The largest packet the protocol carries in one piece. */
const MAX_PACKET_LENGTH = 16777215

/** A command too large for one packet: nothing was sent. */
class PipelineTooLarge extends Error {
  constructor () {
    super('a pipelined command does not fit in one packet')
    this.name = 'PipelineTooLarge'
  }
}

/**
 * The server-side prepared statement for `sql` on this connection: from
 * mysql2's per-connection cache, or prepared with a round trip.
 * @param {any} conn a mysql2 connection (callback API) @param {string} sql
 * @returns {Promise<any>}
 */
const prepared = (conn, sql) => new Promise((resolve, reject) => {
  conn.prepare({ sql }, (/** @type {any} */ err, /** @type {any} */ statement) => (err ? reject(err) : resolve(statement)))
})

/**
 * Prepares what the commands need (nothing is sent to run yet). Rejects when
 * the server refuses one (not preparable, or its prepared-statement limit).
 * @param {any} conn @param {readonly PipelinedCommand[]} commands
 * @returns {Promise<any[]>} per command, its prepared statement or null
 */
async function preparePipeline (conn, commands) {
  if (!supported) throw new Error(`pipelining is written for mysql2 ${PIPELINE_MYSQL2}, not ${mysql2Version}`)
  // All asked at once: mysql2 answers those it has from its cache and
  // queues the rest, one round trip each.
  return Promise.all(commands.map((c) => (c.prepare ? prepared(conn, c.sql) : null)))
}

/**
 * The answer is read as mysql2 reads it; the packet went out already, so the
 * command starts where its own start() would leave it.
 * @param {any} command @param {'_queryOptions' | '_executeOptions'} optionsKey @param {Function} firstState
 */
function answerOnly (command, optionsKey, firstState) {
  command.start = function (/** @type {any} */ _packet, /** @type {any} */ connection) {
    this._connection = connection
    this.options = /** @type {any} */ (ConnectionConfig).queryOptions(connection.config, this[optionsKey])
    // What writePacket() leaves: the request was packet 0 of the command.
    connection.sequenceId = 1
    return firstState
  }
  return command
}

/**
 * Sends the commands in one write and resolves with each one's outcome, in
 * order. A failed command does not stop the server from running the ones
 * after it. Throws before writing anything when the connection is busy or a
 * command does not fit in one packet (PipelineTooLarge).
 * @param {any} conn a mysql2 connection with no command in progress
 * @param {readonly PipelinedCommand[]} commands
 * @param {any[]} statements from preparePipeline
 * @returns {Promise<Outcome[]>}
 */
function sendPipeline (conn, commands, statements) {
  if (conn._command || (conn._commands && conn._commands.length)) throw new Error('pipeline: the connection has a command in progress')
  const P = /** @type {any} */ (Packets)
  const C = /** @type {any} */ (Commands)
  const clientFlags = conn.config.clientFlags & (conn.serverCapabilityFlags || 0)
  /** @type {Buffer[]} */
  const packets = []
  /** @type {any[]} */
  const queued = []
  let tooLarge = false
  const outcomes = commands.map((c, i) => new Promise((resolve) => {
    const done = (/** @type {any} */ error, /** @type {any} */ result) => resolve(error ? { error } : { result })
    const statement = statements[i]
    let packet
    if (statement) {
      packet = new P.Execute(statement.id, c.bindings, conn.config.charsetNumber, conn.config.timezone, undefined,
        clientFlags, conn._isMariaDB, statement.parameters).toPacket()
      queued.push(answerOnly(new C.Execute({ statement, sql: c.sql, values: c.bindings }, done), '_executeOptions', C.Execute.prototype.resultsetHeader))
    } else {
      const sql = c.bindings.length ? conn.format(c.sql, c.bindings) : c.sql
      packet = new P.Query(sql, conn.config.charsetNumber, undefined, clientFlags).toPacket()
      queued.push(answerOnly(new C.Query({ sql, values: [] }, done), '_queryOptions', C.Query.prototype.resultsetHeader))
    }
    // A packet this large is split in several (mysql2's writePacket); here it
    // is refused before anything is written, and the caller sends text.
    if (packet.length() >= MAX_PACKET_LENGTH) {
      tooLarge = true
      return
    }
    packet.writeHeader(0)
    packets.push(packet.buffer)
  }))
  if (tooLarge) throw new PipelineTooLarge()
  conn.write(Buffer.concat(packets))
  for (const command of queued) conn.addCommand(command)
  return Promise.all(outcomes)
}

/**
 * Prepares, then sends (see sendPipeline).
 * @param {any} conn @param {readonly PipelinedCommand[]} commands @returns {Promise<Outcome[]>}
 */
async function pipeline (conn, commands) {
  return sendPipeline(conn, commands, await preparePipeline(conn, commands))
}

module.exports = { pipeline, preparePipeline, sendPipeline, PipelineTooLarge }
