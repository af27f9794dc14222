'use strict'

// The writes of one handler transaction, sent to MySQL as one multi-statement
// round trip instead of one round trip each. Handlers read what they need,
// then return their effects as statements (knex builders or raw SQL with
// bindings); the consumer runner adds its progress record and flushes them
// together, still inside the batch's transaction. Values are always bound
// (placeholders escaped by the driver), never spliced into the SQL.

/**
 * @typedef {{ sql: string, bindings: readonly any[], onResult?: (result: any) => void, keys?: readonly string[] }} Statement
 *   keys: the rows the statement writes that another chunk might write too (e.g. `transfer:<id>`):
 *   a shared transaction never commits two chunks that write the same one (shared-transactions.js)
 */

function createWriteBatch () {
  /** @type {Statement[]} */
  const statements = []
  return {
    /**
     * @param {string | import('knex').Knex.QueryBuilder | import('knex').Knex.Raw} query raw SQL or a knex builder
     * @param {readonly any[]} [bindings] for raw SQL
     * @param {(result: any) => void} [onResult] told the statement's result (e.g. affectedRows) after the flush
     * @param {readonly string[]} [keys] the rows it writes that other chunks might write too
     */
    add (query, bindings = [], onResult, keys) {
      if (typeof query === 'string') statements.push({ sql: query, bindings, onResult, keys })
      else {
        const native = query.toSQL().toNative()
        statements.push({ sql: native.sql, bindings: native.bindings, onResult, keys })
      }
    },
    /** The keys of the rows the statements not yet sent write. @returns {Set<string>} */
    keys () {
      return new Set(statements.flatMap((s) => s.keys || []))
    },
    /**
     * Adds statements taken from another batch (`drain()`), as they are:
     * the caller keeps them, so a transaction run again can send them again.
     * @param {readonly Statement[]} taken
     */
    addAll (taken) {
      statements.push(...taken)
    },
    /**
     * Moves another batch's statements to the end of this one (a shared
     * transaction's writes go out together: shared-transactions.js).
     * @param {{ drain: () => Statement[] }} other
     */
    take (other) {
      statements.push(...other.drain())
    },
    /** Removes and returns the statements not yet sent. */
    drain () {
      return statements.splice(0, statements.length)
    },
    /**
     * Executes every statement in one round trip (the connection allows
     * multiple statements), in order; the first failure rejects.
     * @param {import('knex').Knex.Transaction} trx
     */
    async flush (trx) {
      if (!statements.length) return
      const sent = statements.splice(0, statements.length)
      const sql = sent.map((s) => s.sql.replace(/;\s*$/, '')).join(';\n')
      const bindings = sent.flatMap((s) => s.bindings)
      const [results] = await trx.raw(sql, bindings)
      // One statement answers with its result, several with one result each.
      sent.forEach((s, i) => { if (s.onResult) s.onResult(sent.length === 1 ? results : results[i]) })
    }
  }
}

/** @typedef {ReturnType<typeof createWriteBatch>} WriteBatch */

module.exports = { createWriteBatch }
