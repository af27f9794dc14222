'use strict'

// One commit for the consumer transactions that are ready at the same moment.
//
// Every stage of a transfer's path commits its own transaction, so a
// transfer costs six commits however large the batches are; under load each
// stage's batch is only tens of records, and commits per transfer stay near
// 0.4. Yet the consumers of one process (every stage in `npm start` and the
// benchmark, or the partitions of one replica) are ready with their chunks at
// nearly the same moments. Here they share a transaction: while one is open
// (up to `maxOpen`), the chunks that arrive wait and then go together into
// the next one — group commit, one level above the database's own.
//
// Each chunk's work runs as it would alone: its reads (with BEGIN for the
// first of them) go over the shared connection in the order they are asked,
// and its writes wait in its own write batch. When every chunk's work is
// done, all their writes and one COMMIT go in one round trip. A chunk never
// needs another chunk's writes: the chunks of one moment belong to different
// transfers (a transfer's next stage starts only after this commit) or to
// different partitions, and so to different accounts (DESIGN rule 3).
//
// If any chunk's work fails, or the shared writes do, everything is rolled
// back; a chunk whose own work threw gets its error, and every other chunk
// runs again alone (its own transaction, as withFoldedTransaction), so one
// failing chunk never fails the others, and a failing write finds its chunk.
// Works are already run again on retries (DESIGN rule 1), so this asks
// nothing new of the handlers.
//
// At a light load nothing waits: a chunk that finds no transaction open runs
// at once, alone.

const { createWriteBatch } = require('./write-batch')
const { withFoldedTransaction, openFolded } = require('./folded-transaction')

/**
 * @template T
 * @typedef {import('./folded-transaction').FoldedWork<T>} FoldedWork
 */
/**
 * @typedef {{ work: FoldedWork<any>, traceContext?: import('@opentelemetry/api').Context,
 *   resolve: (value: any) => void, reject: (err: any) => void }} Member
 * @typedef {{ members: number, rolledBack: boolean }} GroupInfo
 */

/**
 * @param {import('knex').Knex} db
 * @param {{ maxOpen: number, onGroup?: (info: GroupInfo) => void }} opts
 *   maxOpen: shared transactions open at once; onGroup: told about each one (metrics, tests)
 */
function createSharedTransactions (db, { maxOpen, onGroup }) {
  if (!(maxOpen >= 1)) throw new Error('createSharedTransactions: maxOpen must be at least 1')
  /** @type {Member[]} */
  const waiting = []
  let open = 0
  let scheduled = false

  /**
   * Like withFoldedTransaction(db, work, opts); resolves once the shared
   * transaction it joined is committed.
   * @template T
   * @param {FoldedWork<T>} work
   * @param {{ traceContext?: import('@opentelemetry/api').Context }} [opts]
   * @returns {Promise<T>}
   */
  function run (work, { traceContext } = {}) {
    return new Promise((resolve, reject) => {
      waiting.push({ work, traceContext, resolve, reject })
      schedule()
    })
  }

  // After the current turn of the event loop, so that every chunk made ready
  // by the same event joins.
  function schedule () {
    if (scheduled || open >= maxOpen || !waiting.length) return
    scheduled = true
    setImmediate(start)
  }

  function start () {
    scheduled = false
    if (open >= maxOpen || !waiting.length) return
    const members = waiting.splice(0, waiting.length)
    open++
    runGroup(members).finally(() => {
      open--
      schedule()
    })
  }

  /**
   * In a transaction of its own.
   * @param {Member} m @returns {Promise<PromiseSettledResult<any>>}
   */
  const alone = async (m) => (await Promise.allSettled([withFoldedTransaction(db, m.work, { traceContext: m.traceContext })]))[0]
  /** @param {Member} m @param {PromiseSettledResult<any>} outcome */
  const settle = (m, outcome) => (outcome.status === 'fulfilled' ? m.resolve(outcome.value) : m.reject(outcome.reason))

  /** @param {Member[]} members */
  async function runGroup (members) {
    if (members.length === 1) {
      const outcome = await alone(members[0])
      if (onGroup) onGroup({ members: 1, rolledBack: outcome.status === 'rejected' })
      settle(members[0], outcome)
      return
    }
    const conn = await db.client.acquireConnection().catch((err) => { members.forEach((m) => m.reject(err)); return null })
    if (!conn) return
    const folded = openFolded(db, conn)
    const txs = members.map((m) => folded.member(m.traceContext))
    let settled = await Promise.allSettled(members.map((m, i) => m.work(txs[i]).then((value) => {
      if (!txs[i].began()) throw new Error('withFoldedTransaction: begin() was never called')
      return value
    })))
    let committed = false
    try {
      if (settled.every((s) => s.status === 'fulfilled')) {
        const all = createWriteBatch()
        for (const tx of txs) all.take(tx.writes)
        all.add('COMMIT')
        await folded.flush(all, members[0].traceContext)
        committed = true
      }
    } catch (err) {
      settled = [] // the writes failed: which chunk's, only running alone can tell
    } finally {
      if (!committed) await folded.rollback(members[0].traceContext)
      db.client.releaseConnection(conn)
    }
    if (onGroup) onGroup({ members: members.length, rolledBack: !committed })
    if (committed) {
      members.forEach((m, i) => settle(m, settled[i]))
      return
    }
    // The chunk whose own work threw keeps its error; every other one runs again alone.
    await Promise.all(members.map(async (m, i) => {
      const s = settled[i]
      settle(m, s && s.status === 'rejected' ? s : await alone(m))
    }))
  }

  return {
    run,
    /** Shared transactions open now. */
    open: () => open,
    /** Chunks waiting for the next one. */
    waiting: () => waiting.length
  }
}

module.exports = { createSharedTransactions }
