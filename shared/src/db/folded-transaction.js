'use strict'

// A transaction that costs no round trips of its own: BEGIN travels with the
// first statement and COMMIT with the final write batch. On this class of
// machine a round trip's socket write costs more CPU than the SQL it carries
// (the profile in docs/performance.md), and a handler chunk's transaction is
// only a few round trips long, so two fewer is a large share.
//
// The callback gets `trx`, usable like a knex transaction for what handlers
// do: `trx(table)` builders bound to the connection, and `trx.raw(sql,
// bindings)` resolving to [rows, fields] as knex's mysql2 raw does.

const { context } = require('@opentelemetry/api')
const { createWriteBatch } = require('./write-batch')

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
 * @param {import('knex').Knex} db
 * @param {(tx: { trx: any, writes: ReturnType<typeof createWriteBatch>,
 *   begin: (statements: { sql: string, bindings: readonly any[] }[]) => Promise<any[]> }) => Promise<T>} work
 *   `begin` must come first: it opens the transaction with the given statements in the same
 *   round trip and returns each statement's rows
 * @param {{ traceContext?: import('@opentelemetry/api').Context }} [opts] the context its SQL
 *   spans belong to (a consumer chunk's batch span)
 * @returns {Promise<T>}
 */
async function withFoldedTransaction (db, work, { traceContext } = {}) {
  const conn = await db.client.acquireConnection()
  let open = false
  try {
    const trx = Object.assign((table) => db(table).connection(conn), { raw: (sql, bindings = []) => query(conn, sql, bindings, traceContext) })
    const writes = createWriteBatch()
    const begin = async (statements) => {
      const sql = ['START TRANSACTION', ...statements.map((st) => st.sql)].join(';\n')
      const [results] = await query(conn, sql, statements.flatMap((st) => st.bindings), traceContext)
      open = true
      return results.slice(1)
    }
    const result = await work({ trx, writes, begin })
    if (!open) throw new Error('withFoldedTransaction: begin() was never called')
    writes.add('COMMIT')
    await writes.flush(/** @type {any} */ (trx))
    open = false
    return result
  } catch (err) {
    if (open) await query(conn, 'ROLLBACK', [], traceContext).catch(() => {})
    throw err
  } finally {
    db.client.releaseConnection(conn)
  }
}

module.exports = { withFoldedTransaction }
