'use strict'

// A transaction that costs no round trips of its own: BEGIN travels with the
// first statement (or, when nothing is read first, with the writes) and
// COMMIT with the final write batch. On this class of
// machine a round trip's socket write costs more CPU than the SQL it carries
// (the profile in docs/performance.md), and a handler chunk's transaction is
// only a few round trips long, so two fewer is a large share.
//
// The callback gets `trx`, usable like a knex transaction for what handlers
// do: `trx(table)` builders bound to the connection, and `trx.raw(sql,
// bindings)` resolving to [rows, fields] as knex's mysql2 raw does.

const { context, trace, SpanKind, SpanStatusCode } = require('@opentelemetry/api')
const { createWriteBatch } = require('./write-batch')
const { writesPrepared } = require('./create-db')
const { preparePipeline, sendPipeline, PipelineTooLarge } = require('./pipeline')

/**
 * @param {any} conn a mysql2 connection
 * @param {string} sql
 * @param {readonly any[]} bindings
 * @param {import('@opentelemetry/api').Context} [traceContext] active while the query is sent
 * @returns {Promise<[any, any]>}
 */
const query = (conn, sql, bindings, traceContext) => new Promise((resolve, reject) => {
  /** @type {(err: any, results: any, fields: any) => void} */
  const done = (err, results, fields) => (err ? reject(err) : resolve([results, fields]))
  // The SQL span (mysql2's instrumentation) takes the context active when the
  // query is sent: the chunk's batch span, set here for that moment.
  if (traceContext) context.with(traceContext, () => conn.query(sql, bindings, done))
  else conn.query(sql, bindings, done)
})

/**
 * @template T
 * @typedef {(tx: { trx: any, writes: ReturnType<typeof createWriteBatch>,
 *   begin: (statements: { sql: string, bindings: readonly any[] }[]) => Promise<any[]> }) => Promise<T>} FoldedWork
 *   `begin` must come first: it opens the transaction with the given statements in the same
 *   round trip and returns each statement's rows
 */

/** Connections that reached the server's limit of prepared statements (DB_PREPARED_WRITES): they write as text. @type {WeakSet<object>} */
const textOnly = new WeakSet()

/** A read that failed while it shared its round trip with other works' reads: whose it was is not known. */
class SharedReadError extends Error {
  /** @param {any} cause */
  constructor (cause) {
    super(`a read shared with other works failed: ${cause && cause.message}`, { cause })
    this.name = 'SharedReadError'
  }
}

/**
 * A transaction on `conn` that one or more works share (shared-transactions.js):
 * each gets its own `trx`, write batch and `begin`; the first `begin` sent
 * carries START TRANSACTION. The `begin`s called in the same turn of the event
 * loop (the works of a shared transaction are started together, and each
 * begins at once) go in one round trip: however many chunks share the
 * transaction, their reads cost one.
 * @param {import('knex').Knex} db
 * @param {any} conn a mysql2 connection
 */
function openFolded (db, conn) {
  let started = false
  const prepared = writesPrepared(db)
  /** @type {{ statements: { sql: string, bindings: readonly any[] }[], resolve: (rows: any[]) => void, reject: (err: any) => void, traceContext?: import('@opentelemetry/api').Context }[]} */
  let asked = []

  // Everything asked in this turn, in one multi-statement query; each asker
  // gets its own statements' results. If a statement fails, the transaction
  // is lost to all of them: each gets a SharedReadError (the one failure
  // as its cause), which tells the shared transaction to run it again alone.
  async function sendAsked () {
    const batch = asked
    asked = []
    const first = !started
    started = true
    const sqls = [...(first ? ['START TRANSACTION'] : []), ...batch.flatMap((a) => a.statements.map((st) => st.sql))]
    try {
      const [results] = await query(conn, sqls.join(';\n'), batch.flatMap((a) => a.statements.flatMap((st) => st.bindings)), batch[0].traceContext)
      // One statement answers with its result, several with one result each.
      const each = sqls.length > 1 ? results : [results]
      let at = first ? 1 : 0
      for (const a of batch) {
        a.resolve(each.slice(at, at + a.statements.length))
        at += a.statements.length
      }
    } catch (err) {
      // Which asker's statement failed, only running each alone can tell.
      if (batch.length === 1) batch[0].reject(err)
      else for (const a of batch) a.reject(new SharedReadError(err))
    }
  }

  /**
   * DB_PREPARED_WRITES: the writes as prepared statements, pipelined in one
   * round trip, then COMMIT in one of its own once every write has succeeded.
   * The server runs every command it receives, so two things keep a failed
   * write from committing the rest. The COMMIT waits for the answers. And the
   * session is in autocommit 0 from before the first write: a deadlock rolls
   * the whole transaction back, and the writes after it then open a new one
   * that the ROLLBACK discards, instead of each committing on its own.
   * Autocommit comes back with the COMMIT or ROLLBACK; a connection that
   * cannot say so is destroyed, never handed back to the pool.
   * @param {import('./write-batch').Statement[]} statements the writes, without the COMMIT
   * @param {import('@opentelemetry/api').Context} [traceContext]
   * @returns {Promise<boolean>} false when a statement could not be prepared or does not fit in
   *   one packet: nothing was sent, and the caller sends the batch as text
   */
  async function flushPrepared (statements, traceContext) {
    if (textOnly.has(conn)) return false
    const commands = [
      { sql: 'SET autocommit = 0', bindings: [] },
      ...(started ? [] : [{ sql: 'START TRANSACTION', bindings: [] }]),
      ...statements.map((st) => ({ sql: st.sql, bindings: st.bindings, prepare: st.bindings.length > 0 }))
    ]
    /** @type {any[]} */
    let statementsPrepared
    try {
      statementsPrepared = await preparePipeline(conn, commands)
    } catch (err) {
      // At the server's limit of prepared statements, this connection would
      // pay a refused round trip on every flush: it sends text from now on.
      if (err && /** @type {any} */ (err).code === 'ER_MAX_PREPARED_STMT_COUNT_REACHED') textOnly.add(conn)
      return false
    }
    /** @type {Promise<import('./pipeline').Outcome[]>} */
    let sending
    try {
      sending = sendPipeline(conn, commands, statementsPrepared)
    } catch (err) {
      if (err instanceof PipelineTooLarge) return false
      throw err
    }
    const span = trace.getTracer('switchyard').startSpan('pipelined writes', { kind: SpanKind.CLIENT }, traceContext)
    if (span.isRecording()) {
      span.setAttributes({ 'db.system': 'mysql', 'db.operation.batch.size': statements.length, 'db.statement': statements.map((st) => st.sql.slice(0, 40)).join('; ').slice(0, 300) })
    }
    started = true
    /** @type {import('./pipeline').Outcome[]} */
    let outcomes = []
    try {
      outcomes = await sending
      const failed = outcomes.find((o) => 'error' in o)
      if (failed && 'error' in failed) throw failed.error
      await query(conn, 'COMMIT; SET autocommit = 1', [], traceContext)
    } catch (err) {
      // A write or the COMMIT failed: nothing of the writes commits, and the session is as it was.
      await query(conn, 'ROLLBACK; SET autocommit = 1', []).catch(() => conn.destroy())
      span.recordException(/** @type {any} */ (err))
      span.setStatus({ code: SpanStatusCode.ERROR, message: String(err && /** @type {any} */ (err).message) })
      throw err
    } finally {
      started = false
      span.end()
    }
    const results = outcomes.slice(commands.length - statements.length)
    statements.forEach((st, i) => { if (st.onResult) st.onResult(/** @type {{ result: any }} */ (results[i]).result) })
    return true
  }

  return {
    /**
     * @param {import('@opentelemetry/api').Context} [traceContext] the context its SQL spans belong to
     */
    member (traceContext) {
      let began = false
      const trx = Object.assign((table) => db(table).connection(conn), { raw: (sql, bindings = []) => query(conn, sql, bindings, traceContext) })
      /** @param {{ sql: string, bindings: readonly any[] }[]} statements @returns {Promise<any[]>} */
      const begin = (statements) => {
        began = true
        // Nothing to read: START TRANSACTION goes with the writes instead. A
        // work that begins so must not read through `trx` afterwards: until
        // the writes, no transaction is open (the runner's readsFirst mode
        // hands such a work no `trx`).
        if (!statements.length) return Promise.resolve([])
        return new Promise((resolve, reject) => {
          if (!asked.length) queueMicrotask(sendAsked)
          asked.push({ statements, resolve, reject, traceContext })
        })
      }
      return { trx, writes: createWriteBatch(), begin, began: () => began }
    },
    /**
     * Sends the batch's writes and COMMIT in one round trip; with
     * DB_PREPARED_WRITES, the writes in one and the COMMIT in another.
     * @param {import('./write-batch').WriteBatch} writes
     * @param {import('@opentelemetry/api').Context} [traceContext]
     */
    async commit (writes, traceContext) {
      const statements = writes.drain()
      if (prepared && await flushPrepared(statements, traceContext)) return
      const batch = createWriteBatch()
      // No statement was read in it: the transaction opens here.
      if (!started) batch.add('START TRANSACTION')
      started = true
      batch.addAll(statements)
      batch.add('COMMIT')
      await batch.flush(/** @type {any} */ ({ raw: (sql, bindings) => query(conn, sql, bindings, traceContext) }))
      started = false
    },
    /** @param {import('@opentelemetry/api').Context} [traceContext] */
    async rollback (traceContext) {
      if (!started) return
      started = false
      await query(conn, 'ROLLBACK', [], traceContext).catch(() => {})
    }
  }
}

/**
 * @template T
 * @param {import('knex').Knex} db
 * @param {FoldedWork<T>} work
 * @param {{ traceContext?: import('@opentelemetry/api').Context }} [opts] the context its SQL
 *   spans belong to (a consumer chunk's batch span)
 * @returns {Promise<T>}
 */
async function withFoldedTransaction (db, work, { traceContext } = {}) {
  const conn = await db.client.acquireConnection()
  const folded = openFolded(db, conn)
  try {
    const tx = folded.member(traceContext)
    const result = await work(tx)
    if (!tx.began()) throw new Error('withFoldedTransaction: begin() was never called')
    await folded.commit(tx.writes, traceContext)
    return result
  } catch (err) {
    await folded.rollback(traceContext)
    throw err
  } finally {
    db.client.releaseConnection(conn)
  }
}

/**
 * Reads outside any transaction, in one round trip: each statement's rows.
 * @param {import('knex').Knex} db
 * @param {{ sql: string, bindings: readonly any[] }[]} statements at least one
 * @param {import('@opentelemetry/api').Context} [traceContext]
 * @returns {Promise<any[]>}
 */
async function readOnce (db, statements, traceContext) {
  const conn = await db.client.acquireConnection()
  try {
    const [results] = await query(conn, statements.map((st) => st.sql).join(';\n'), statements.flatMap((st) => st.bindings), traceContext)
    return statements.length > 1 ? results : [results]
  } finally {
    db.client.releaseConnection(conn)
  }
}

module.exports = { withFoldedTransaction, openFolded, readOnce, SharedReadError }
