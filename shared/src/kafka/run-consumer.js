'use strict'

// The one place that owns the order of a consumer's work (DESIGN.md rule 1):
//
//   DB transaction commits → outgoing messages produced (acks=all) → offsets committed
//
// The handler's effects, the partitions' applied offsets and the messages the
// handler wants to send are written in one transaction. A crash anywhere later
// redelivers the records; records at or below the applied offset are then
// recognised as redeliveries: they are not applied again, and what they
// emitted the first time is emitted again from the stored copy.
//
// One transaction takes the waiting records of every partition the consumer
// owns (up to maxBatchSize records), not one partition's: how many
// partitions a topic has is a scaling decision, and must not shrink the
// batches one replica applies (a consumer owning six partitions would
// otherwise pay six commits where one does).

const { toWire, fromKafka } = require('./envelope')
const { toDeadLetter } = require('./dead-letter')
const { isRetriable } = require('./retriable')
const { progressQuery, toProgress, recordProgress } = require('./progress')
const { withFoldedTransaction, readOnce } = require('../db/folded-transaction')
const { createWriteBatch } = require('../db/write-batch')
const { startStageSpans } = require('../tracing/stage-spans')
const { sleep, backoff, describeClusterId } = require('./runner-settings')
const { restartCrashedConsumer } = require('./crash-restart')
const { createPacer } = require('./pacer')
const { createOffsetCommits } = require('./offset-commits')
const { createInFlight } = require('./in-flight')
const { createKnownProgress } = require('./known-progress')
const { watchSoleMember } = require('./sole-member')

/**
 * @typedef {import('./envelope').IncomingMessage} IncomingMessage
 * @typedef {import('./envelope').OutgoingMessage} OutgoingMessage
 * @typedef {(deps: { trx: import('knex').Knex.Transaction, writes: ReturnType<typeof import('../db/write-batch').createWriteBatch>,
 *   prefetched?: any[][] },
 *   messages: IncomingMessage[]) => Promise<{ outgoing?: OutgoingMessage[], afterCommit?: () => void }>} HandleBatch
 *   afterCommit: called once the batch's transaction has committed (before its messages are produced)
 * @typedef {object} RunnerOptions
 * @property {import('kafkajs').Kafka} kafka
 * @property {import('knex').Knex} db
 * @property {ReturnType<typeof import('./producer').createProducer>} producer a connected producer
 * @property {import('pino').Logger} logger
 * @property {string} groupId
 * @property {string[]} topics
 * @property {HandleBatch} handleBatch
 * @property {(records: IncomingMessage[]) => { sql: string, bindings: readonly any[] }[]} [prefetch]
 *   reads the handler needs, run in the transaction's first round trip; their rows reach
 *   handleBatch as `prefetched` (they may cover redelivered records too)
 * @property {import('./runner-settings').RunnerSettings} settings
 * @property {<T>(work: import('../db/folded-transaction').FoldedWork<T>, opts: { traceContext?: import('@opentelemetry/api').Context, records?: number, source?: string }) => Promise<T>} [transact]
 *   runs a transaction; the default is one of its own (withFoldedTransaction), the
 *   process's shared transactions are the alternative (shared-transactions.js)
 * @property {boolean} [readsFirst] the reads (progress and prefetch) and handleBatch run before
 *   the transaction, which then carries only the writes: for a handler that waits on something
 *   other than the database (the notification handler's first delivery attempts), so that its
 *   waiting holds no transaction open; handleBatch then gets no `trx` to read with. Its `prefetch`
 *   may only look for what the records themselves left (rows keyed by them, as the notification
 *   handler's callback ids are): after a chunk it committed itself, the reads are known to find
 *   nothing and are skipped (known-progress.js)
 * @property {{ afterDbCommit?: (info: { topic: string, partition: number, lastOffset: bigint }) => void | Promise<void> }} [hooks] test seams for fault injection
 * @property {(messages: import('./envelope').WireMessage[]) => void} [onCommitted] hears what each
 *   transaction emits as soon as it has committed, before it is produced: the messages are durable
 *   from then on (stored with the progress row, produced or re-emitted), so a consumer of them in the
 *   same process may act on them ahead of their records (the notification handler's callbacks,
 *   CALLBACK_EARLY). Not called for what a redelivery re-emits.
 * @property {string} [stage] the stage name in traces and metrics (defaults to groupId)
 * @property {ConsumerObserver} [observer] told about every applied chunk (metrics)
 */

/**
 * What a runner reports after each chunk has been committed, produced and
 * its offsets committed. Times are epoch milliseconds.
 * @typedef {{ stage: string, topic: string, partition: number, size: number, applied: number,
 *   queueGapsMs: number[], pickedUpAt: number, dbMs: number, produceMs: number, totalMs: number }} ChunkReport
 * @typedef {{ onChunk?: (report: ChunkReport) => void, onTransaction?: (info: { stage: string, records: number, partitions: number }) => void,
 *   onDeadLetter?: (info: { stage: string, topic: string, partition: number, offset: string }) => void }} ConsumerObserver
 */

/**
 * @typedef {{ batch: { topic: string, partition: number }, records: IncomingMessage[] }} Part
 *   one partition's records within a transaction
 * @typedef {{ replay: import('./envelope').WireMessage[], replayEnd: bigint, outgoing: import('./envelope').WireMessage[],
 *   applied: number, unparsable: IncomingMessage[], afterCommit?: () => void }} PartResult
 *   unparsable: records that were not JSON, dead-lettered by this transaction
 * @typedef {Part & { ctx: { isRunning: () => boolean, heartbeat: () => Promise<void> },
 *   spans: ReturnType<typeof startStageSpans> }} Chunk
 * @typedef {{ results: PartResult[], dbDone: number, produced: number }} ChunkDone
 */

/** Partitions kafkajs hands over at once: all a consumer is likely to own. */
const HANDED_OVER = 64

/**
 * Creates and starts a consumer. Returns `stop()`, which lets the batch in
 * progress finish (commit, produce, offsets) before disconnecting — unless
 * it is retrying (the broker or database away): then it gives up, and the
 * partition's next owner takes the chunk up again.
 * @param {RunnerOptions} opts
 */
async function runConsumer (opts) {
  const { kafka, db, producer, logger, groupId, topics, handleBatch, prefetch, settings, hooks = {}, observer = {} } = opts
  /** @type {NonNullable<RunnerOptions['transact']>} */
  const alone = (work, o) => withFoldedTransaction(db, work, o)
  const transact = opts.transact || alone
  const readsFirst = Boolean(opts.readsFirst)
  const stage = opts.stage || groupId
  const log = logger.child({ consumer: groupId })
  // Set once stop() begins: nothing new starts, and a crash is not restarted.
  let stopping = false
  /** @type {Set<() => void>} the backoffs waiting now, ended by stop() */
  const backoffs = new Set()
  /** Sleeps `ms`, or less if stop() comes first. @param {number} ms */
  const backoffSleep = (ms) => new Promise((resolve) => {
    const wake = () => { clearTimeout(timer); backoffs.delete(wake); resolve(undefined) }
    const timer = setTimeout(wake, ms)
    backoffs.add(wake)
  })
  const consumer = kafka.consumer({
    groupId,
    allowAutoTopicCreation: false,
    maxWaitTimeInMs: settings.maxWaitMs,
    maxBytesPerPartition: settings.maxBytesPerPartition,
    sessionTimeout: settings.sessionTimeoutMs,
    heartbeatInterval: Math.max(500, Math.floor(settings.sessionTimeoutMs / 10)),
    // kafkajs asks before restarting a crashed consumer. Once stopping, no: a
    // crash while start-up was still retrying would otherwise schedule a
    // restart after stop() had disconnected, and the consumer would rejoin
    // its group, or retry against a broker that is gone, for ever.
    retry: { initialRetryTime: 200, retries: 10, restartOnFailure: async () => !stopping }
  })
  // What a reads-first consumer applied itself since it last joined its group.
  const known = createKnownProgress()
  for (const event of [consumer.events.GROUP_JOIN, consumer.events.REBALANCING]) consumer.on(event, () => known.newGeneration())
  const membership = watchSoleMember(consumer, log)
  // After a crash we may re-emit a stored range that extends past the records
  // of the current fetch; remember it so the rest of that range is skipped.
  /** @type {Map<string, bigint>} */
  const replayedThrough = new Map()

  /**
   * One attempt: a single transaction over the records of one or more
   * partitions (each partition's records in offset order). A record that is
   * a poison pill gets `deadLetter` set and is stored as applied with its
   * dead-letter message as its only output.
   *
   * What the transaction emits (and anything it re-emits) is stored once, in
   * the progress row of the first partition with fresh records; the other
   * partitions' rows only move their offsets. Every partition of a committed
   * transaction is redelivered together after a crash (none of their offsets
   * were committed), so the stored messages are re-sent when that first
   * partition's records come back; they stay stored until then, because a
   * row is replaced only by a transaction that re-stores what it replays.
   * @param {Part[]} parts
   * @param {{ deadLetter?: { err: any, attempts: number }, traceContext?: import('@opentelemetry/api').Context, alone?: boolean, onWork?: () => void }} [mode]
   *   traceContext: the batch span its SQL spans hang under; alone: in a transaction of its own,
   *   never a shared one (retries after a failure); onWork: told when its database work begins
   * @returns {Promise<PartResult[]>}
   */
  async function applyOnce (parts, mode = {}) {
    const wheres = parts.map(({ batch, records }) => ({ group: groupId, topic: `${clusterId}/${batch.topic}`, partition: batch.partition, fromOffset: records[0].offset }))
    const all = parts.flatMap((p) => p.records)
    // The handler's own reads (when it declares them) share the first round
    // trip with the progress reads.
    const reads = prefetch && !mode.deadLetter ? prefetch(all) : []
    const statements = [...wheres.map(progressQuery), ...reads]
    const run = mode.alone ? alone : transact
    const opts = { traceContext: mode.traceContext, records: all.length, source: groupId }
    if (readsFirst) {
      // Read, and let the handler do its waiting, before the transaction
      // opens; it then only carries the writes (with BEGIN and COMMIT, one
      // round trip). Only this consumer writes its progress rows, so reading
      // them just before is reading them inside. After a chunk it committed
      // itself, it knows what that read would say (known-progress.js).
      if (mode.onWork) mode.onWork()
      const startedIn = known.generation()
      const keys = parts.map(({ batch }) => `${batch.topic}:${batch.partition}`)
      try {
        const rows = knownRows(parts, keys, reads) ?? await readOnce(db, statements, mode.traceContext)
        const staged = createWriteBatch()
        const results = await decide(parts, wheres, rows, { trx: null, writes: staged, reads, mode })
        const decided = staged.drain()
        // The work may run twice: a shared transaction that rolls back runs it
        // again alone (shared-transactions.js), and each run sends every write.
        const committed = await run(async ({ writes, begin }) => {
          await begin([])
          writes.addAll(decided)
          return results
        }, opts)
        // Through the chunk's last record, or further if the progress row
        // said so (records of an earlier owner's transactions, not yet fetched).
        parts.forEach((p, i) => {
          const last = p.records[p.records.length - 1].offset
          const stored = rows[i].length ? BigInt(rows[i][0].last_offset) : -1n
          known.applied(keys[i], stored > last ? stored : last, startedIn)
        })
        return committed
      } catch (err) {
        for (const key of keys) known.forget(key)
        throw err
      }
    }
    // BEGIN travels with the reads and COMMIT with the writes: the handler's
    // writes, the progress records and COMMIT are one round trip.
    return run(async ({ trx, writes, begin }) => {
      if (mode.onWork) mode.onWork()
      return decide(parts, wheres, await begin(statements), { trx, writes, reads, mode })
    }, opts)
  }

  /**
   * The rows the reads before the transaction would return, when every part
   * follows a chunk this consumer committed itself: progress through that
   * chunk with nothing to re-emit, and no rows for the handler's own reads
   * (they look for what these records left, and nothing has handled them).
   * Null when the database must be asked.
   * @param {Part[]} parts @param {string[]} keys @param {any[]} reads
   * @returns {any[] | null}
   */
  function knownRows (parts, keys, reads) {
    /** @type {any[]} */
    const rows = []
    for (let i = 0; i < parts.length; i++) {
      const through = known.freshAfter(keys[i], parts[i].records[0].offset)
      if (through === undefined) return null
      rows.push([{ first_offset: String(through), last_offset: String(through), outgoing: null }])
    }
    return rows.concat(reads.map(() => []))
  }

  /**
   * What the parts' records come to, given the reads: the handler's effects
   * and the progress records added to `writes`, and each part's result.
   * @param {Part[]} parts
   * @param {{ group: string, topic: string, partition: number, fromOffset: bigint }[]} wheres
   * @param {any[]} rows the progress reads' rows, then the handler's reads'
   * @param {{ trx: any, writes: ReturnType<typeof createWriteBatch>, reads: any[],
   *   mode: { deadLetter?: { err: any, attempts: number } } }} tx
   * @returns {Promise<PartResult[]>}
   */
  async function decide (parts, wheres, rows, { trx, writes, reads, mode }) {
    const prefetched = rows.slice(parts.length)
    const states = parts.map((part, i) => {
      const { appliedThrough, last } = toProgress(rows[i])
      const fresh = part.records.filter((r) => r.offset > appliedThrough)
      // Redelivered records of earlier transactions were emitted before the
      // latest one started; only the latest one's messages may be unsent.
      const replayed = last !== null && last.firstOffset <= part.records[part.records.length - 1].offset ? last : null
      return { fresh, replayed }
    })
    const fresh = states.flatMap((st) => st.fresh)
    // A record that is not JSON can never be handled: it goes to the
    // dead-letter topic in this transaction, and the others are applied.
    const unparsable = fresh.filter((r) => r.parseError)
    /** @type {import('./envelope').WireMessage[]} */
    let outgoing = unparsable.map((r) => toWire(toDeadLetter(r, { message: `message is not JSON: ${r.parseError.message}`, attempts: 1 })))
    /** @type {(() => void) | undefined} */
    let afterCommit
    const parsed = unparsable.length ? fresh.filter((r) => !r.parseError) : fresh
    if (parsed.length) {
      if (mode.deadLetter) {
        const { err, attempts } = mode.deadLetter
        outgoing = outgoing.concat(parsed.map((r) => toWire(toDeadLetter(r, { message: String(err && err.message), code: err && err.code, attempts }))))
      } else {
        const result = await handleBatch({ trx, writes, prefetched: reads.length ? prefetched : undefined }, parsed)
        outgoing = outgoing.concat((result && result.outgoing ? result.outgoing : []).map(toWire))
        afterCommit = result && result.afterCommit
      }
    }
    const keeper = states.findIndex((st) => st.fresh.length > 0)
    // A replay is re-stored with the new messages, so a second crash before
    // the produce loses neither.
    const replays = states.flatMap((st) => (st.replayed ? st.replayed.outgoing : []))
    states.forEach((st, i) => {
      if (st.fresh.length) {
        recordProgress(writes, wheres[i], {
          firstOffset: st.fresh[0].offset,
          lastOffset: st.fresh[st.fresh.length - 1].offset,
          outgoing: i === keeper ? [...replays, ...outgoing] : []
        })
      } else if (st.replayed && st.replayed.outgoing.length && keeper >= 0) {
        // Its replay now lives in the keeper's row: store it once.
        recordProgress(writes, wheres[i], { ...st.replayed, outgoing: [] })
      }
    })
    return states.map((st, i) => ({
      replay: st.replayed ? st.replayed.outgoing : [],
      replayEnd: st.replayed ? st.replayed.lastOffset : -1n,
      outgoing: i === keeper ? outgoing : [],
      applied: st.fresh.length,
      unparsable: st.fresh.filter((r) => r.parseError),
      afterCommit: i === keeper ? afterCommit : undefined
    }))
  }

  /**
   * Retries `work` with backoff. Retriable failures (database or broker away)
   * retry for as long as the consumer runs; others stop after maxAttempts.
   * @template T
   * @param {(attempt: number) => Promise<T>} work
   * @param {{ isRunning: () => boolean, heartbeat: () => Promise<void>, what: string, bounded: boolean }} ctx
   * @returns {Promise<{ ok: boolean, value?: T, err?: any, attempts: number }>}
   */
  async function withRetries (work, ctx) {
    for (let attempt = 1; ; attempt++) {
      try {
        return { ok: true, value: await work(attempt), attempts: attempt }
      } catch (err) {
        const retriable = isRetriable(err)
        log.warn({ err, attempt, retriable }, `${ctx.what} failed`)
        if (ctx.bounded && !retriable && attempt >= settings.maxAttempts) return { ok: false, err, attempts: attempt }
        // Stopping gives up (kafkajs says running until its disconnect, which
        // waits for this chunk): the chunk's offsets stay unresolved, so the
        // partition's next owner takes it up again, or replays what it emits.
        if (!ctx.isRunning() || stopping) throw err
        await backoffSleep(backoff(attempt, settings.backoffMs))
        await ctx.heartbeat().catch(() => {})
      }
    }
  }

  /**
   * Sends what applied records emitted (and what redelivered ones must
   * re-emit), retrying for as long as the consumer runs. The process's
   * consumers share one producer: sends that meet while a produce request is
   * in flight go out together in the next one (fewer round trips under load).
   * @param {{ replay: import('./envelope').WireMessage[], outgoing: import('./envelope').WireMessage[] }[]} results
   * @param {{ isRunning: () => boolean, heartbeat: () => Promise<void> }} ctx
   */
  async function produce (results, ctx) {
    const messages = results.flatMap((r) => [...r.replay, ...r.outgoing])
    // Unbounded: it returns once sent, or throws when the consumer stops.
    await withRetries(() => producer.sendSoon(messages), { ...ctx, what: 'produce', bounded: false })
  }

  /**
   * Applies the parts in one transaction; when that keeps failing, each
   * partition on its own, and within a failing partition record by record:
   * the record that keeps failing goes to the dead-letter topic and the
   * partition moves on.
   * @param {Part[]} parts
   * @param {{ isRunning: () => boolean, heartbeat: () => Promise<void>, traceContext?: import('@opentelemetry/api').Context, onWork?: () => void }} ctx
   * @returns {Promise<PartResult[][]>} per part
   */
  async function processParts (parts, ctx) {
    const { traceContext } = ctx
    // Only the first attempt may share a transaction with other consumers'
    // chunks: a chunk that failed once does not put theirs at risk again.
    const whole = await withRetries((attempt) => applyOnce(parts, { traceContext, alone: attempt > 1, onWork: ctx.onWork }), { ...ctx, what: 'batch', bounded: true })
    if (whole.ok) return whole.value.map((r) => [r])
    if (parts.length === 1) return [await isolate(parts[0], ctx)]
    const results = []
    for (const part of parts) {
      const single = await withRetries(() => applyOnce([part], { traceContext, alone: true }), { ...ctx, what: `partition ${part.batch.partition}`, bounded: true })
      results.push(single.ok ? single.value : await isolate(part, ctx))
    }
    return results
  }

  /**
   * Record by record through a partition's failing chunk. Each record's
   * messages are sent before the next record is applied: the progress row
   * only remembers the latest transaction's messages.
   * @param {Part} part
   * @param {{ isRunning: () => boolean, heartbeat: () => Promise<void>, traceContext?: import('@opentelemetry/api').Context }} ctx
   */
  async function isolate ({ batch, records }, ctx) {
    const { traceContext } = ctx
    /** @type {PartResult[]} */
    const results = []
    /** @param {PartResult} r */
    const sendNow = async (r) => {
      await produce([r], ctx)
      results.push({ ...r, replay: [], outgoing: [] })
    }
    for (const record of records) {
      const one = await withRetries(() => applyOnce([{ batch, records: [record] }], { traceContext, alone: true }), { ...ctx, what: `offset ${record.offset}`, bounded: true })
      if (one.ok) { await sendNow(one.value[0]); continue }
      log.error({ err: one.err, topic: batch.topic, partition: batch.partition, offset: String(record.offset) }, 'dead-lettering message')
      if (observer.onDeadLetter) observer.onDeadLetter({ stage, topic: batch.topic, partition: batch.partition, offset: String(record.offset) })
      const dead = await withRetries(() => applyOnce([{ batch, records: [record] }], { deadLetter: { err: one.err, attempts: one.attempts }, traceContext, alone: true }), { ...ctx, what: 'dead-letter', bounded: false })
      await sendNow(/** @type {PartResult[]} */ (dead.value)[0])
    }
    return results
  }

  // Offsets restart at 0 on a new cluster (a wiped local broker): progress is
  // scoped by cluster id so old rows can never make new records look applied.
  const clusterId = await describeClusterId(kafka)
  await consumer.connect()
  for (const topic of topics) await consumer.subscribe({ topic, fromBeginning: true })
  /**
   * Chunks waiting for a transaction, from any of the consumer's partitions.
   * kafkajs hands every partition of a fetch to eachBatch at once, so the
   * chunks of one fetch meet here and share a transaction.
   * @type {{ chunk: Chunk, resolve: (done: ChunkDone) => void, reject: (err: any) => void }[]}
   */
  const waiting = []
  let inFlight = 0
  let scheduled = false
  // One record per transaction (the naive baseline) gains nothing from waiting.
  const pacer = createPacer({ lingerMs: settings.maxBatchSize > 1 ? (settings.lingerMs || 0) : 0 })

  /**
   * Resolves once the chunk's transaction is committed and what it emits acknowledged.
   * @param {Chunk} chunk @returns {Promise<ChunkDone>}
   */
  function submit (chunk) {
    return new Promise((resolve, reject) => {
      waiting.push({ chunk, resolve, reject })
      schedule()
    })
  }

  // After the current turn of the event loop, so that every partition
  // handed over with this fetch has added its chunk.
  function schedule () {
    if (scheduled) return
    scheduled = true
    setImmediate(startTransactions)
  }

  function startTransactions () {
    scheduled = false
    while (waiting.length && inFlight < settings.partitionsConcurrently) {
      // Whole chunks, up to maxBatchSize records (always at least one chunk).
      const group = waiting.splice(0, 1)
      let size = group[0].chunk.records.length
      while (waiting.length && size + waiting[0].chunk.records.length <= settings.maxBatchSize) {
        size += waiting[0].chunk.records.length
        group.push(...waiting.splice(0, 1))
      }
      inFlight++
      applyGroup(group.map((w) => w.chunk))
        .then((done) => group.forEach((w, i) => w.resolve(done[i])), (err) => { for (const w of group) w.reject(err) })
        .finally(() => {
          inFlight--
          if (waiting.length) schedule()
        })
    }
  }

  /**
   * One transaction over the chunks, then one produce of everything they
   * emit and re-emit.
   * @param {Chunk[]} chunks
   * @returns {Promise<ChunkDone[]>} per chunk
   */
  async function applyGroup (chunks) {
    // isRunning and heartbeat are the consumer's, whichever chunk they came with.
    const ctx = chunks[0].ctx
    const startedAt = Date.now()
    const parts = chunks.map((c) => ({ batch: c.batch, records: c.records }))
    // The transaction's SQL spans hang under the first chunk's batch span.
    /** @type {number | undefined} */
    let workAt
    const onWork = () => { if (workAt === undefined) workAt = performance.now() }
    const results = await processParts(parts, { ...ctx, traceContext: chunks[0].spans.batchContext, onWork })
    for (const c of chunks.slice(1)) c.spans.joinTransaction(chunks[0].spans.batchContext)
    for (const c of chunks) c.spans.workStartedAt(workAt)
    const dbDone = Date.now()
    // The effects are committed: what the handlers keep in memory about them
    // hears so now, not after the produce, which a crash of the consumer
    // could cut short while the rows stay committed.
    for (const r of results.flat()) {
      try { if (r.afterCommit) r.afterCommit() } catch (err) { log.error({ err }, 'afterCommit failed') }
    }
    if (opts.onCommitted) {
      const emitted = results.flat().flatMap((r) => r.outgoing)
      try { if (emitted.length) opts.onCommitted(emitted) } catch (err) { log.error({ err }, 'onCommitted failed') }
    }
    const records = parts.reduce((n, p) => n + p.records.length, 0)
    pacer.observe(records, startedAt)
    if (observer.onTransaction) observer.onTransaction({ stage, records, partitions: parts.length })
    if (hooks.afterDbCommit) {
      for (const c of chunks) await hooks.afterDbCommit({ topic: c.batch.topic, partition: c.batch.partition, lastOffset: c.records[c.records.length - 1].offset })
    }
    await produce(results.flat(), ctx)
    const produced = Date.now()
    return results.map((r) => ({ results: r, dbDone, produced }))
  }

  // Offsets are committed by interval, not after every batch (offset-commits.js).
  const commits = createOffsetCommits({
    commit: (offsets) => consumer.commitOffsets(offsets),
    intervalMs: settings.offsetCommitIntervalMs,
    logger: log
  })
  // A rebalance may hand our partitions to another member, which starts from
  // the committed offsets: commit what is finished before the group settles.
  consumer.on(consumer.events.REBALANCING, () => { commits.flush() })
  /** @type {Promise<void> | undefined} */
  let stopped
  const batches = createInFlight()

  /** @type {import('kafkajs').ConsumerRunConfig} */
  const runConfig = {
    // Offsets are resolved only after a chunk's effects are committed and its
    // messages acknowledged, and committed by `commits` (not kafkajs's
    // autoCommit, which would commit after every batch).
    autoCommit: false,
    eachBatchAutoResolve: false,
    // Every partition of a fetch is handed over at once (a waiting partition
    // costs nothing); how many transactions run at once is partitionsConcurrently.
    partitionsConsumedConcurrently: HANDED_OVER,
    eachBatch: async ({ batch, heartbeat, isRunning, isStale, resolveOffset }) => {
      // Once stopping, nothing new starts: what was finished is committed,
      // and the rest is the next owner's.
      if (stopping) return
      await batches.run(async () => {
        // A fetched batch is applied in chunks of at most maxBatchSize records;
        // a transaction takes whole chunks of any partitions up to that size
        // (maxBatchSize 1 is the naive one-message-at-a-time baseline).
        for (let i = 0; i < batch.messages.length; i += settings.maxBatchSize) {
          if (isStale() || !isRunning() || stopping) return
          await applyChunk(batch, batch.messages.slice(i, i + settings.maxBatchSize), { heartbeat, isRunning, resolveOffset })
        }
      })
      // kafkajs fetches again once every partition of this fetch is done:
      // under a steady load, let the next batch gather first (pacer.js).
      const linger = pacer.lingerMs()
      if (linger > 0 && isRunning() && !stopping) await sleep(linger)
    }
  }

  // A crash kafkajs does not restart is restarted here (crash-restart.js).
  restartCrashedConsumer({ consumer, runConfig, isStopping: () => stopping, backoffMs: settings.backoffMs, logger: log })
  await consumer.run(runConfig)

  /**
   * @param {{ topic: string, partition: number }} batch
   * @param {any[]} messages kafkajs messages
   * @param {{ heartbeat: () => Promise<void>, isRunning: () => boolean, resolveOffset: (offset: string) => void }} handles
   */
  async function applyChunk (batch, messages, { heartbeat, isRunning, resolveOffset }) {
    const pickedUpAt = Date.now()
    const partKey = `${batch.topic}:${batch.partition}`
    const skipThrough = replayedThrough.get(partKey) ?? -1n
    // Records already re-emitted from a stored range are not even parsed.
    const records = messages.filter((m) => BigInt(m.offset) > skipThrough).map((m) => fromKafka(batch.topic, batch.partition, m, clusterId))
    const lastFetched = BigInt(messages[messages.length - 1].offset)
    let commitThrough = lastFetched
    const spans = startStageSpans({ stage, topic: batch.topic, partition: batch.partition, pickedUpAt, records })
    /** @type {ChunkDone} */
    let done = { results: [], dbDone: pickedUpAt, produced: pickedUpAt }
    try {
      if (records.length) {
        done = await submit({ batch, records, ctx: { isRunning, heartbeat }, spans })
        const replayEnd = done.results.reduce((max, r) => (r.replayEnd > max ? r.replayEnd : max), -1n)
        if (replayEnd > lastFetched) { replayedThrough.set(partKey, replayEnd); commitThrough = replayEnd }
      }
      // Only now, with effects committed and messages acknowledged, may the
      // broker forget the records. A re-emitted stored range may reach past
      // this fetch: the commit then skips it too.
      resolveOffset(String(lastFetched))
      commits.done(batch.topic, batch.partition, commitThrough + 1n)
    } catch (err) {
      spans.end(err)
      throw err
    }
    spans.end()
    // Effects committed, messages acknowledged (handlers heard of the commit in applyGroup).
    for (const r of done.results) {
      for (const u of r.unparsable) {
        log.error({ topic: u.topic, partition: u.partition, offset: String(u.offset), err: u.parseError }, 'dead-lettered a message that is not JSON')
        if (observer.onDeadLetter) observer.onDeadLetter({ stage, topic: u.topic, partition: u.partition, offset: String(u.offset) })
      }
    }
    if (observer.onChunk) {
      observer.onChunk({
        stage,
        topic: batch.topic,
        partition: batch.partition,
        size: messages.length,
        applied: done.results.reduce((n, r) => n + r.applied, 0),
        queueGapsMs: records.map((r) => Math.max(0, pickedUpAt - r.timestamp)),
        pickedUpAt,
        dbMs: done.dbDone - pickedUpAt,
        produceMs: done.produced - done.dbDone,
        totalMs: Date.now() - pickedUpAt
      })
    }
    await heartbeat()
  }

  return {
    consumer,
    /** Whether this consumer owns every partition of its topics now: it is its group's only member. */
    ownsAll: () => membership.sole,
    stop () {
      // Let the chunks in progress finish, commit every finished offset, then
      // leave the group: a graceful stop redelivers nothing, but a chunk that
      // was retrying when it began.
      stopped = stopped || (async () => {
        stopping = true
        for (const wake of [...backoffs]) wake()
        // After a crash kafkajs has no consumer group until it restarts, and
        // pause() throws: the stop must still commit and disconnect.
        try { consumer.pause(topics.map((topic) => ({ topic }))) } catch (err) { log.warn({ err }, 'could not pause the consumer while stopping') }
        await batches.idle()
        await commits.close()
        await consumer.disconnect()
      })()
      return stopped
    }
  }
}

module.exports = { runConsumer }
