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
// Each chunk's work runs as it would alone: its reads go over the shared
// connection, and its writes wait in its own write batch. The chunks' first
// reads (each begins with them) go together, with BEGIN, in one round trip;
// when every chunk's work is done, all their writes and one COMMIT go in one
// more. However many chunks share it, a transaction costs two round trips. A chunk never
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
//
// Under load it pays to wait a little (`lingerMs`). The consumers of a shared
// transaction are busy producing and fetching for a few milliseconds after it
// commits, so the next one would start with whoever else was waiting and
// miss them; they would form the one after, and the consumers settle into
// cohorts that commit in turn. So after a busy transaction (at least
// `busyRecords` records) the next one starts once as many chunks wait as it
// had, or `lingerMs` after it ended, whichever comes first. A single
// transfer's stages never make a busy transaction (one or two records each),
// so its latency does not pay for this; only loads that make a commit carry
// many records do.

const { createWriteBatch } = require('./write-batch')
const { withFoldedTransaction, openFolded, SharedReadError } = require('./folded-transaction')

/**
 * @template T
 * @typedef {import('./folded-transaction').FoldedWork<T>} FoldedWork
 */
/**
 * @typedef {{ work: FoldedWork<any>, traceContext?: import('@opentelemetry/api').Context, records: number,
 *   resolve: (value: any) => void, reject: (err: any) => void }} Member
 * @typedef {{ members: number, records: number, rolledBack: boolean, ms: number }} GroupInfo
 *   ms: from taking its chunks to its commit or rollback (a chunk run again alone after a rollback is not in it)
 */

/**
 * @param {import('knex').Knex} db
 * @param {{ maxOpen: number, lingerMs?: number, busyRecords?: number, onGroup?: (info: GroupInfo) => void }} opts
 *   maxOpen: shared transactions open at once; lingerMs: how long after a busy one the next
 *   may wait for as many chunks as it had (0: never waits); busyRecords: the records that make
 *   one busy; onGroup: told about each one (metrics, tests)
 */
function createSharedTransactions (db, { maxOpen, lingerMs = 0, busyRecords = Infinity, onGroup }) {
  if (!(maxOpen >= 1)) throw new Error('createSharedTransactions: maxOpen must be at least 1')
  /** @type {Member[]} */
  const waiting = []
  let open = 0
  let scheduled = false
  /** @type {ReturnType<typeof setTimeout> | null} */
  let lingering = null
  /** The last busy shared transaction: how many chunks it had, and when it ended. */
  let busy = { members: 0, endedAt: 0 }

  /**
   * Like withFoldedTransaction(db, work, opts); resolves once the shared
   * transaction it joined is committed.
   * @template T
   * @param {FoldedWork<T>} work
   * @param {{ traceContext?: import('@opentelemetry/api').Context, records?: number }} [opts]
   *   records: how many records the work applies (what makes a shared transaction busy)
   * @returns {Promise<T>}
   */
  function run (work, { traceContext, records = 1 } = {}) {
    return new Promise((resolve, reject) => {
      waiting.push({ work, traceContext, records, resolve, reject })
      schedule()
    })
  }

  /** How much longer the next shared transaction waits for more chunks. */
  function lingerLeft () {
    if (!busy.members || waiting.length >= busy.members) return 0
    return busy.endedAt + lingerMs - Date.now()
  }

  // After the current turn of the event loop, so that every chunk made ready
  // by the same event joins; after a busy one, perhaps a little later, until
  // enough chunks wait (a wait that is no longer needed is cut short).
  function schedule () {
    if (open >= maxOpen || !waiting.length) return
    const wait = lingerLeft()
    if (lingering && wait <= 0) {
      clearTimeout(lingering)
      lingering = null
      scheduled = false
    }
    if (scheduled) return
    scheduled = true
    if (wait > 0) lingering = setTimeout(start, wait)
    else setImmediate(start)
  }

  function start () {
    scheduled = false
    lingering = null
    if (open >= maxOpen || !waiting.length) return
    const members = waiting.splice(0, waiting.length)
    const records = members.reduce((n, m) => n + m.records, 0)
    open++
    runGroup(members, records).finally(() => {
      open--
      busy = lingerMs > 0 && records >= busyRecords ? { members: members.length, endedAt: Date.now() } : { members: 0, endedAt: 0 }
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

  /** @param {Member[]} members @param {number} records */
  async function runGroup (members, records) {
    const startedAt = performance.now()
    const took = () => performance.now() - startedAt
    if (members.length === 1) {
      const outcome = await alone(members[0])
      if (onGroup) onGroup({ members: 1, records, rolledBack: outcome.status === 'rejected', ms: took() })
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
    if (onGroup) onGroup({ members: members.length, records, rolledBack: !committed, ms: took() })
    if (committed) {
      members.forEach((m, i) => settle(m, settled[i]))
      return
    }
    // The chunk whose own work threw keeps its error; every other one runs
    // again alone, and so does each whose shared reads failed (whose read
    // it was, running alone tells).
    await Promise.all(members.map(async (m, i) => {
      const s = settled[i]
      settle(m, s && s.status === 'rejected' && !(s.reason instanceof SharedReadError) ? s : await alone(m))
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
