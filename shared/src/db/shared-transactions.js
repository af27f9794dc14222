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
// more. However many chunks share it, a transaction costs two round trips. A chunk
// almost never needs another chunk's writes: the chunks of one moment mostly
// belong to different transfers (a transfer's next stage starts only after
// this commit) or to different partitions, and so to different accounts
// (DESIGN rule 3). Almost: a transfer's fulfil and its expiry, or a resend and
// the step it waits for, come from different stages and can meet in one
// shared transaction. Their `SELECT … FOR UPDATE` on the one connection does
// not keep them apart, so both would plan from the same row. Statements name
// the rows they write (write-batch.js keys); a shared transaction in which
// two chunks write the same one is rolled back and each chunk runs alone,
// where the row lock orders them.
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
// Under load it pays to keep a transaction open a little (`lingerMs`). After a
// busy one (at least `busyRecords` records), the next one takes chunks as they
// come, and a chunk that joins it starts its work at once: its reads go over
// the shared connection as it asks for them, inside the open transaction, and
// only its writes wait for the common COMMIT. So the wait overlaps the chunks'
// own work instead of coming before it. A chunk that joins late still reads
// what other connections committed after the transaction opened: every
// connection runs READ COMMITTED (create-db.js), where each read sees the
// latest commits, not a snapshot from the start. It stops taking chunks once
// every consumer whose chunks were in the last few busy ones has a chunk in it
// (everyone it waits for is in), or `lingerMs` after it opened, or when a
// chunk's work fails; it commits as soon as the works of the chunks in it are
// done, and the chunks that come meanwhile open the next one. The consumers
// then commit together once per cycle instead of in cohorts that take turns. A
// single transfer's stages never make a busy transaction (one or two records
// each), so its latency does not pay for any of this.
//
// A window pays only while it is no longer than the transaction's own work:
// until then a joining chunk costs little wait, since the transaction could
// not commit much earlier anyway; past it, the transaction sits idle holding
// every chunk in it. How long that work takes depends on the machine and the
// load (2–4 ms on one machine, 8–15 ms on one four times slower), so a fixed
// window that suits one is too long for the other. With `lingerShare`, the
// window is that share of the recent busy transactions' own time, at most
// `lingerMs`. Their own time is what the window cannot lengthen: from
// opening to the end of the works they started with, plus their COMMIT.
//
// A shared transaction's last round trip, its writes with COMMIT, takes as
// long as everything before it under load (half of its time open at 1,000
// transfers a second: ~4 ms for ~80 records), and with one open at a time the
// chunks that arrive meanwhile wait for it doing nothing. With `overlapCommit`
// the next one opens as soon as that round trip is sent: its reads and works
// overlap the previous one's COMMIT on a second connection, yet only one takes
// chunks at a time, so they do not split into smaller groups the way two
// open at once (`maxOpen` 2) would. A read of a row the committing one wrote
// waits for its row lock and then sees the commit (READ COMMITTED), as it
// would from any other connection; a deadlock between the two rolls one back,
// and its chunks run again alone, as for any failed shared write. The next one
// does not wait for the consumers whose chunks are in the one committing:
// their next chunks come only after that commit.

const { createWriteBatch } = require('./write-batch')
const { withFoldedTransaction, openFolded, SharedReadError } = require('./folded-transaction')
const { trace } = require('@opentelemetry/api')
const { joinTransaction } = require('../tracing/stage-spans')

/**
 * @template T
 * @typedef {import('./folded-transaction').FoldedWork<T>} FoldedWork
 */
/**
 * @typedef {{ work: FoldedWork<any>, traceContext?: import('@opentelemetry/api').Context, records: number,
 *   source: unknown, resolve: (value: any) => void, reject: (err: any) => void }} Member
 *   source: whose chunk it is (a consumer's group id; chunks without one count as one source)
 * @typedef {{ members: number, records: number, rolledBack: boolean, ms: number, windowMs: number }} GroupInfo
 *   ms: from taking its chunks to its commit or rollback (a chunk run again alone after a rollback is not in it);
 *   windowMs: how long it could take chunks for after opening (0: it took only those it opened with)
 */

/** How many of the last busy shared transactions tell whose chunks the next one waits for. */
const RECENT = 8
/** Weight of the latest busy shared transaction in the running mean of their own time. */
const OWN_TIME_WEIGHT = 0.2

/**
 * @param {import('knex').Knex} db
 * @param {{ maxOpen: number, lingerMs?: number, lingerShare?: number, busyRecords?: number, overlapCommit?: boolean,
 *   onGroup?: (info: GroupInfo) => void, onConflict?: () => void }} opts
 *   maxOpen: shared transactions open at once; lingerMs: how long after a busy one the next
 *   may take chunks for (0: none after the first); lingerShare: when above 0, the window is
 *   this share of the recent busy ones' own time, at most lingerMs; busyRecords: the records
 *   that make one busy; overlapCommit: one whose writes and COMMIT are on their way no longer
 *   counts against maxOpen (the next may open meanwhile); onGroup: told about each one
 *   (metrics, tests); onConflict: told when one is rolled back because two of its chunks write
 *   the same row
 */
function createSharedTransactions (db, { maxOpen, lingerMs = 0, lingerShare = 0, busyRecords = Infinity, overlapCommit = false, onGroup, onConflict }) {
  if (!(maxOpen >= 1)) throw new Error('createSharedTransactions: maxOpen must be at least 1')
  if (!(lingerShare >= 0)) throw new Error('createSharedTransactions: lingerShare must be 0 or more')
  /** @type {Member[]} */
  const waiting = []
  let open = 0
  let scheduled = false
  /** The shared transaction that takes chunks now, if one does: how a chunk joins it. @type {((m: Member) => void) | null} */
  let joining = null
  /** Whether the last shared transaction was busy (the next one then takes chunks for lingerMs). */
  let lastBusy = false
  /** Whose chunks each of the last few busy ones carried, the latest last. @type {Set<unknown>[]} */
  const recentSources = []
  /** Whose chunks each shared transaction whose COMMIT is on its way carries (overlapCommit). @type {Set<Set<unknown>>} */
  const committing = new Set()
  /** Running mean of the busy ones' own time (see above), in ms; null before the first. @type {number | null} */
  let ownMs = null

  /** @param {number} records */
  const isBusy = (records) => records >= busyRecords
  /** How long the next shared transaction may take chunks for. */
  const windowMs = () => (lingerShare > 0 ? Math.min(lingerMs, lingerShare * (ownMs ?? 0)) : lingerMs)

  /**
   * Like withFoldedTransaction(db, work, opts); resolves once the shared
   * transaction it joined is committed.
   * @template T
   * @param {FoldedWork<T>} work
   * @param {{ traceContext?: import('@opentelemetry/api').Context, records?: number, source?: string }} [opts]
   *   records: how many records the work applies (what makes a shared transaction busy);
   *   source: whose chunk it is (the consumer's group id)
   * @returns {Promise<T>}
   */
  function run (work, { traceContext, records = 1, source } = {}) {
    return new Promise((resolve, reject) => {
      /** @type {Member} */
      const member = { work, traceContext, records, source, resolve, reject }
      if (joining) joining(member)
      else {
        waiting.push(member)
        schedule()
      }
    })
  }

  // After the current turn of the event loop, so that every chunk made ready
  // by the same event starts the next shared transaction together.
  function schedule () {
    if (scheduled || open >= maxOpen || !waiting.length) return
    scheduled = true
    setImmediate(start)
  }

  function start () {
    scheduled = false
    if (open >= maxOpen || !waiting.length) return
    const members = waiting.splice(0, waiting.length)
    // After a busy one, it waits for the consumers of the last few busy ones
    // that have no chunk among these.
    const missing = new Set(lingerMs > 0 && lastBusy ? recentSources.flatMap((sources) => [...sources]) : [])
    for (const m of members) missing.delete(m.source)
    for (const sources of committing) for (const s of sources) missing.delete(s)
    open++
    let released = false
    /**
     * Gives its place to the next one: once it is done, or (overlapCommit) once its COMMIT is on its way.
     * @param {Carried | null} carried what it carried (null: it failed before it knew)
     */
    const release = (carried) => {
      if (released) return
      released = true
      lastBusy = !!carried && isBusy(carried.records)
      if (carried && lastBusy) {
        recentSources.push(carried.sources)
        if (recentSources.length > RECENT) recentSources.shift()
      }
      open--
      schedule()
    }
    const done = members.length === 1 && !missing.size ? runAlone(members[0]) : runGroup(members, missing, release)
    done.then((carried) => {
      const { records, own } = carried
      if (lingerShare > 0 && own !== undefined && isBusy(records)) ownMs = ownMs === null ? own : ownMs + OWN_TIME_WEIGHT * (own - ownMs)
      release(carried)
    }).finally(() => release(null))
  }

  /**
   * In a transaction of its own.
   * @param {Member} m @returns {Promise<PromiseSettledResult<any>>}
   */
  const alone = async (m) => (await Promise.allSettled([withFoldedTransaction(db, m.work, { traceContext: m.traceContext })]))[0]
  /** @param {Member} m @param {PromiseSettledResult<any>} outcome */
  const settle = (m, outcome) => (outcome.status === 'fulfilled' ? m.resolve(outcome.value) : m.reject(outcome.reason))

  /**
   * What a shared transaction carried, and its own time (committed ones only; a group tells it
   * only when a share of it sets the window).
   * @typedef {{ sources: Set<unknown>, records: number, own?: number }} Carried
   */

  /** A lone chunk at a light load: its own transaction, at once. @param {Member} m @returns {Promise<Carried>} */
  async function runAlone (m) {
    const startedAt = performance.now()
    const outcome = await alone(m)
    const ms = performance.now() - startedAt
    const rolledBack = outcome.status === 'rejected'
    if (onGroup) onGroup({ members: 1, records: m.records, rolledBack, ms, windowMs: 0 })
    settle(m, outcome)
    return { sources: new Set([m.source]), records: m.records, own: rolledBack ? undefined : ms }
  }

  /**
   * @param {Member[]} first the chunks it starts with
   * @param {Set<unknown>} missing whose chunks it waits for: it takes chunks until each of them
   *   has one in it, or for windowMs() (none: it takes no more)
   * @param {(carried: Carried) => void} release gives its place to the next one (overlapCommit: as
   *   soon as its writes and COMMIT are sent)
   * @returns {Promise<Carried>} what it carried
   */
  async function runGroup (first, missing, release) {
    const startedAt = performance.now()
    const took = () => performance.now() - startedAt
    /** @typedef {{ member: Member, tx?: ReturnType<ReturnType<typeof openFolded>['member']>, outcome?: Promise<PromiseSettledResult<any>> }} Entry */
    /** @type {Entry[]} */
    const entries = first.map((member) => ({ member }))
    /** @type {ReturnType<typeof openFolded> | null} */
    let folded = null
    /** Starts a chunk's work on the shared connection. @param {Entry} e */
    const startWork = (e) => {
      const tx = /** @type {ReturnType<typeof openFolded>} */ (folded).member(e.member.traceContext)
      e.tx = tx
      e.outcome = Promise.allSettled([e.member.work(tx).then((value) => {
        if (!tx.began()) throw new Error('withFoldedTransaction: begin() was never called')
        return value
      }, (err) => {
        stopJoining() // it will be rolled back: nobody else should join it
        throw err
      })]).then(([s]) => s)
    }
    /** @param {Member} member */
    const join = (member) => {
      const e = { member }
      entries.push(e)
      missing.delete(member.source)
      if (folded) startWork(e)
      if (!missing.size) stopJoining() // everyone it waits for is in
    }
    /** @type {() => void} */
    let windowOver = () => {}
    const joinable = new Promise((resolve) => { windowOver = () => resolve(undefined) })
    /** @type {ReturnType<typeof setTimeout> | null} */
    let timer = null
    function stopJoining () {
      if (joining === join) joining = null
      if (timer) clearTimeout(timer)
      timer = null
      windowOver()
    }
    const lingerFor = missing.size ? windowMs() : 0
    if (lingerFor > 0) {
      joining = join
      timer = setTimeout(stopJoining, lingerFor)
    } else stopJoining()

    const conn = await db.client.acquireConnection().catch((err) => {
      stopJoining()
      for (const e of entries) e.member.reject(err)
      return null
    })
    if (!conn) return { sources: new Set(), records: 0 }
    folded = openFolded(db, conn)
    entries.forEach(startWork)
    // Its own time (only a share of it needs): the works it opened with (what it would wait for anyway), then its COMMIT.
    const firstWorks = lingerShare > 0 ? Promise.all(entries.map((e) => e.outcome)).then(took) : undefined
    await joinable
    // No chunk joins any more: the works are all started.
    const members = entries.map((e) => e.member)
    const carried = { sources: new Set(members.map((m) => m.source)), records: members.reduce((n, m) => n + m.records, 0) }
    let settled = await Promise.all(entries.map((e) => /** @type {Promise<PromiseSettledResult<any>>} */ (e.outcome)))
    let committed = false
    /** @type {number | undefined} */
    let own
    try {
      const worked = settled.every((s) => s.status === 'fulfilled')
      if (worked && writeTheSameRow(entries)) {
        if (onConflict) onConflict()
        settled = [] // each runs alone, where the row locks order them
      } else if (worked) {
        const all = createWriteBatch()
        for (const e of entries) all.take(/** @type {NonNullable<Entry['tx']>} */ (e.tx).writes)
        const flushFrom = took()
        const flushed = folded.commit(all, members[0].traceContext)
        if (overlapCommit) {
          committing.add(carried.sources)
          release(carried)
        }
        await flushed
        committed = true
        if (firstWorks) own = (await firstWorks) + took() - flushFrom
      }
    } catch (err) {
      settled = [] // the writes failed: which chunk's, only running alone can tell
    } finally {
      committing.delete(carried.sources)
      if (!committed) await folded.rollback(members[0].traceContext)
      db.client.releaseConnection(conn)
    }
    if (onGroup) onGroup({ members: members.length, records: carried.records, rolledBack: !committed, ms: took(), windowMs: lingerFor })
    if (committed) {
      // Its SQL ran under the first member's batch span: the others say so (gap report).
      const owner = members[0].traceContext
      if (owner) for (const m of members.slice(1)) joinTransaction(m.traceContext && trace.getSpan(m.traceContext), owner)
      members.forEach((m, i) => settle(m, settled[i]))
      return { ...carried, own }
    }
    // The chunk whose own work threw keeps its error; every other one runs
    // again alone, and so does each whose shared reads failed (whose read
    // it was, running alone tells).
    await Promise.all(members.map(async (m, i) => {
      const s = settled[i]
      settle(m, s && s.status === 'rejected' && !(s.reason instanceof SharedReadError) ? s : await alone(m))
    }))
    return carried
  }

  /**
   * Whether two chunks write the same row (a key both their writes name).
   * @param {{ tx?: { writes: ReturnType<typeof createWriteBatch> } }[]} entries every work started
   */
  function writeTheSameRow (entries) {
    const seen = new Set()
    for (const e of entries) {
      const keys = /** @type {NonNullable<typeof e.tx>} */ (e.tx).writes.keys()
      for (const k of keys) if (seen.has(k)) return true
      for (const k of keys) seen.add(k)
    }
    return false
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
