'use strict'

// The one place that owns the order of a consumer's work (DESIGN.md rule 1):
//
//   DB transaction commits → outgoing messages produced (acks=all) → offsets committed
//
// The handler's effects, the partition's applied offset and the messages the
// handler wants to send are written in one transaction. A crash anywhere later
// redelivers the batch; records at or below the applied offset are then
// recognised as redeliveries: they are not applied again, and what they
// emitted the first time is emitted again from the stored copy.

const { toWire, fromKafka } = require('./envelope')
const { toDeadLetter } = require('./dead-letter')
const { isRetriable } = require('./retriable')
const { progressQuery, toProgress, recordProgress } = require('./progress')
const { withFoldedTransaction } = require('../db/folded-transaction')
const { startStageSpans } = require('../tracing/stage-spans')
const { context } = require('@opentelemetry/api')
const { runnerSettings, sleep, backoff, describeClusterId } = require('./runner-settings')

/**
 * @typedef {import('./envelope').IncomingMessage} IncomingMessage
 * @typedef {import('./envelope').OutgoingMessage} OutgoingMessage
 * @typedef {(deps: { trx: import('knex').Knex.Transaction, writes: ReturnType<typeof import('../db/write-batch').createWriteBatch>,
 *   batch: { topic: string, partition: number }, prefetched?: any[][] },
 *   messages: IncomingMessage[]) => Promise<{ outgoing?: OutgoingMessage[], afterCommit?: () => void }>} HandleBatch
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
 * @property {{ afterDbCommit?: (info: { topic: string, partition: number, lastOffset: bigint }) => void | Promise<void> }} [hooks] test seams for fault injection
 * @property {string} [stage] the stage name in traces and metrics (defaults to groupId)
 * @property {ConsumerObserver} [observer] told about every applied chunk (metrics)
 */

/**
 * What a runner reports after each chunk has been committed, produced and
 * its offsets committed. Times are epoch milliseconds.
 * @typedef {{ stage: string, topic: string, partition: number, size: number, applied: number,
 *   queueGapsMs: number[], pickedUpAt: number, dbMs: number, produceMs: number, totalMs: number }} ChunkReport
 * @typedef {{ onChunk?: (report: ChunkReport) => void, onDeadLetter?: (info: { stage: string, topic: string, partition: number, offset: string }) => void }} ConsumerObserver
 */

/**
 * Creates and starts a consumer. Returns `stop()`, which lets the batch in
 * progress finish (commit, produce, offsets) before disconnecting.
 * @param {RunnerOptions} opts
 */
async function runConsumer (opts) {
  const { kafka, db, producer, logger, groupId, topics, handleBatch, prefetch, settings, hooks = {}, observer = {} } = opts
  const stage = opts.stage || groupId
  const log = logger.child({ consumer: groupId })
  const consumer = kafka.consumer({
    groupId,
    allowAutoTopicCreation: false,
    maxWaitTimeInMs: settings.maxWaitMs,
    maxBytesPerPartition: settings.maxBytesPerPartition,
    sessionTimeout: settings.sessionTimeoutMs,
    heartbeatInterval: Math.max(500, Math.floor(settings.sessionTimeoutMs / 10)),
    retry: { initialRetryTime: 200, retries: 10 }
  })
  // After a crash we may re-emit a stored range that extends past the records
  // of the current fetch; remember it so the rest of that range is skipped.
  /** @type {Map<string, bigint>} */
  const replayedThrough = new Map()

  /**
   * One attempt: a single transaction over `records`. A record that is a
   * poison pill gets `deadLetter` set and is stored as applied with its
   * dead-letter message as its only output.
   * @param {{ topic: string, partition: number }} batch
   * @param {IncomingMessage[]} records
   * @param {{ deadLetter?: { err: any, attempts: number } }} [mode]
   */
  async function applyOnce (batch, records, mode = {}) {
    const where = { group: groupId, topic: `${clusterId}/${batch.topic}`, partition: batch.partition, fromOffset: records[0].offset }
    // BEGIN travels with the progress read and COMMIT with the writes: the
    // handler's writes, the progress record and COMMIT are one round trip.
    return withFoldedTransaction(db, async ({ trx, writes, begin }) => {
      // The handler's own reads (when it declares them) share this first
      // round trip with BEGIN and the progress read.
      const reads = prefetch && !mode.deadLetter ? prefetch(records) : []
      const [progressRows, ...prefetched] = await begin([progressQuery(where), ...reads])
      const { appliedThrough, last } = toProgress(progressRows)
      const fresh = records.filter((r) => r.offset > appliedThrough)
      // Redelivered records of earlier chunks were emitted before the latest
      // chunk started; only the latest chunk's messages may be unsent.
      const overlaps = last !== null && last.firstOffset <= records[records.length - 1].offset
      const replay = overlaps ? last.outgoing : []
      const replayEnd = overlaps ? last.lastOffset : -1n
      /** @type {import('./envelope').WireMessage[]} */
      let outgoing = []
      /** @type {(() => void) | undefined} */
      let afterCommit
      if (fresh.length) {
        if (mode.deadLetter) {
          const { err, attempts } = mode.deadLetter
          outgoing = fresh.map((r) => toWire(toDeadLetter(r, { message: String(err && err.message), code: err && err.code, attempts })))
        } else {
          const unparsable = fresh.find((r) => r.parseError)
          if (unparsable) throw Object.assign(new Error(`message is not JSON: ${unparsable.parseError.message}`), { retriable: false })
          const result = await handleBatch({ trx, writes, batch, prefetched: reads.length ? prefetched : undefined }, fresh)
          outgoing = (result && result.outgoing ? result.outgoing : []).map(toWire)
          afterCommit = result && result.afterCommit
        }
        recordProgress(writes, where, { firstOffset: fresh[0].offset, lastOffset: fresh[fresh.length - 1].offset, outgoing })
      }
      return { replay, replayEnd, outgoing, applied: fresh.length, afterCommit }
    })
  }

  /**
   * Retries `work` with backoff. Retriable failures (database or broker away)
   * retry for as long as the consumer runs; others stop after maxAttempts.
   * @template T
   * @param {() => Promise<T>} work
   * @param {{ isRunning: () => boolean, heartbeat: () => Promise<void>, what: string, bounded: boolean }} ctx
   * @returns {Promise<{ ok: boolean, value?: T, err?: any, attempts: number }>}
   */
  async function withRetries (work, ctx) {
    for (let attempt = 1; ; attempt++) {
      try {
        return { ok: true, value: await work(), attempts: attempt }
      } catch (err) {
        const retriable = isRetriable(err)
        log.warn({ err, attempt, retriable }, `${ctx.what} failed`)
        if (ctx.bounded && !retriable && attempt >= settings.maxAttempts) return { ok: false, err, attempts: attempt }
        if (!ctx.isRunning()) throw err
        await sleep(backoff(attempt, settings.backoffMs))
        await ctx.heartbeat().catch(() => {})
      }
    }
  }

  /**
   * Sends what applied records emitted (and what redelivered ones must
   * re-emit), retrying for as long as the consumer runs.
   * @param {{ replay: import('./envelope').WireMessage[], outgoing: import('./envelope').WireMessage[] }[]} results
   * @param {{ isRunning: () => boolean, heartbeat: () => Promise<void> }} ctx
   */
  async function produce (results, ctx) {
    const messages = results.flatMap((r) => [...r.replay, ...r.outgoing])
    const sent = await withRetries(() => producer.send(messages), { ...ctx, what: 'produce', bounded: false })
    if (!sent.ok) throw sent.err
  }

  /**
   * @param {{ topic: string, partition: number }} batch
   * @param {IncomingMessage[]} records
   * @param {{ isRunning: () => boolean, heartbeat: () => Promise<void> }} ctx
   */
  async function processRecords (batch, records, ctx) {
    const whole = await withRetries(() => applyOnce(batch, records), { ...ctx, what: 'batch', bounded: true })
    if (whole.ok) return [whole.value]
    // Isolate the poison pill: apply records one by one; the one that keeps
    // failing goes to the dead-letter topic and the partition moves on.
    // Each record's messages are sent before the next record is applied: the
    // progress row only remembers the latest chunk's messages.
    const results = []
    /** @param {Awaited<ReturnType<typeof applyOnce>>} r */
    const sendNow = async (r) => {
      await produce([r], ctx)
      results.push({ ...r, replay: [], outgoing: [] })
    }
    for (const record of records) {
      const one = await withRetries(() => applyOnce(batch, [record]), { ...ctx, what: `offset ${record.offset}`, bounded: true })
      if (one.ok) { await sendNow(one.value); continue }
      log.error({ err: one.err, topic: batch.topic, partition: batch.partition, offset: String(record.offset) }, 'dead-lettering message')
      if (observer.onDeadLetter) observer.onDeadLetter({ stage, topic: batch.topic, partition: batch.partition, offset: String(record.offset) })
      const dead = await withRetries(() => applyOnce(batch, [record], { deadLetter: { err: one.err, attempts: one.attempts } }), { ...ctx, what: 'dead-letter', bounded: false })
      if (dead.ok) await sendNow(dead.value)
    }
    return results
  }

  // Offsets restart at 0 on a new cluster (a wiped local broker): progress is
  // scoped by cluster id so old rows can never make new records look applied.
  const clusterId = await describeClusterId(kafka)
  await consumer.connect()
  for (const topic of topics) await consumer.subscribe({ topic, fromBeginning: true })
  await consumer.run({
    // Offsets are resolved only after a chunk's effects are committed and its
    // messages acknowledged; kafkajs then commits resolved offsets in the
    // background (and on rebalance and stop), off the critical path. A crash
    // can only widen the redelivered range, which the progress table absorbs.
    autoCommit: true,
    autoCommitInterval: settings.offsetCommitIntervalMs,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: settings.partitionsConcurrently,
    eachBatch: async ({ batch, heartbeat, isRunning, isStale, resolveOffset }) => {
      // A fetched batch is applied in chunks of at most maxBatchSize records,
      // each chunk one transaction, one produce and one offset commit
      // (maxBatchSize 1 is the naive one-message-at-a-time baseline).
      for (let i = 0; i < batch.messages.length; i += settings.maxBatchSize) {
        if (isStale() || !isRunning()) return
        await applyChunk(batch, batch.messages.slice(i, i + settings.maxBatchSize), { heartbeat, isRunning, resolveOffset })
      }
    }
  })

  /**
   * @param {{ topic: string, partition: number }} batch
   * @param {any[]} messages kafkajs messages
   * @param {{ heartbeat: () => Promise<void>, isRunning: () => boolean, resolveOffset: (offset: string) => void }} ctx
   */
  async function applyChunk (batch, messages, { heartbeat, isRunning, resolveOffset }) {
    const pickedUpAt = Date.now()
    let dbDone = pickedUpAt
    let produced = pickedUpAt
    const partKey = `${batch.topic}:${batch.partition}`
    const skipThrough = replayedThrough.get(partKey) ?? -1n
    const records = messages.map((m) => fromKafka(batch.topic, batch.partition, m)).filter((r) => r.offset > skipThrough)
    const lastFetched = BigInt(messages[messages.length - 1].offset)
    let commitThrough = lastFetched
    let results = []
    const spans = startStageSpans({ stage, topic: batch.topic, partition: batch.partition, pickedUpAt, records })
    try {
      if (records.length) {
        const ctx = { isRunning, heartbeat }
        // The transaction runs in the batch span, so its SQL spans hang there.
        results = await context.with(spans.batchContext, () => processRecords(batch, records, ctx))
        dbDone = Date.now()
        const lastOffset = records[records.length - 1].offset
        if (hooks.afterDbCommit) await hooks.afterDbCommit({ topic: batch.topic, partition: batch.partition, lastOffset })
        await produce(results, ctx)
        produced = Date.now()
        const replayEnd = results.reduce((max, r) => (r.replayEnd > max ? r.replayEnd : max), -1n)
        if (replayEnd > lastFetched) { replayedThrough.set(partKey, replayEnd); commitThrough = replayEnd }
      }
      // Only now, with effects committed and messages acknowledged, may the
      // broker forget the records.
      resolveOffset(String(lastFetched))
      if (commitThrough > lastFetched) {
        // A re-emitted stored range reaches past this fetch: skip it explicitly.
        await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: String(commitThrough + 1n) }])
      }
    } catch (err) {
      spans.end(err)
      throw err
    }
    spans.end()
    // Effects committed, messages acknowledged, offsets committed: hand over.
    for (const r of results) {
      try { if (r.afterCommit) r.afterCommit() } catch (err) { log.error({ err }, 'afterCommit failed') }
    }
    if (observer.onChunk) {
      observer.onChunk({
        stage,
        topic: batch.topic,
        partition: batch.partition,
        size: messages.length,
        applied: results.reduce((n, r) => n + r.applied, 0),
        queueGapsMs: records.map((r) => Math.max(0, pickedUpAt - r.timestamp)),
        pickedUpAt,
        dbMs: dbDone - pickedUpAt,
        produceMs: produced - dbDone,
        totalMs: Date.now() - pickedUpAt
      })
    }
    await heartbeat()
  }

  return {
    consumer,
    async stop () {
      await consumer.disconnect()
    }
  }
}

module.exports = { runConsumer, runnerSettings }
