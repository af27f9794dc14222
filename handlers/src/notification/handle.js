'use strict'

// The consumer side. A batch of notification messages becomes callbacks that
// are tried at once (dispatcher.deliverFirst), and one multi-row INSERT of
// their rows, each in the state its first attempt left it in, with the
// attempts — sent with the runner's write batch and COMMIT. The participant
// therefore never waits for the database, and a callback delivered at its
// first attempt costs two rows and no later UPDATE. Callbacks still PENDING
// are claimed by this instance; what happens to them after the commit goes
// through the write-behind buffer.
//
// Delivering before the commit is safe: what a callback says comes from the
// Kafka record, which is already durable. A crash (or a failed transaction)
// before the commit means the records come back and their callbacks are
// delivered again — callbacks are at-least-once, as FSPIOP's idempotent PUTs
// allow. A record redelivered after the commit is skipped by the runner, and
// one whose callback has a row already (its progress lost) is left out here.
// Messages that can never be delivered are dead-lettered with the reason,
// through the runner's outgoing messages (stored with the batch, so a
// redelivery re-emits rather than repeats).

const { traceHeaders } = require('@switchyard/shared/kafka')
const { callbackIdOf, toJob, invalidToDeadLetter } = require('./message')
const { existingCallbacksQuery } = require('./repository')

/**
 * @param {{ repository: ReturnType<typeof import('./repository').createRepository>,
 *   dispatcher: Pick<ReturnType<typeof import('./dispatcher').createDispatcher>, 'deliverFirst' | 'written'>,
 *   deadLetterTopic: string, inlineWaitMs: number }} deps
 *   inlineWaitMs: how long a batch waits for its first attempts before writing them as in flight
 */
function createHandleBatch ({ repository, dispatcher, deadLetterTopic, inlineWaitMs }) {
  /**
   * @param {{ writes: ReturnType<typeof import('@switchyard/shared/db').createWriteBatch>, prefetched?: any[][] }} deps
   * @param {import('./message').IncomingMessage[]} messages
   */
  return async function handleBatch ({ writes, prefetched }, messages) {
    const existing = new Set((prefetched ? prefetched[0] : []).map((/** @type {any} */ r) => r.callback_id))
    /** @type {import('./message').Job[]} */
    const jobs = []
    /** @type {import('./message').OutgoingMessage[]} */
    const outgoing = []
    for (const record of messages) {
      const { job, problem } = callbackOf(record)
      if (!job) {
        outgoing.push(invalidToDeadLetter(record, problem, deadLetterTopic))
        continue
      }
      if (existing.has(job.callbackId)) continue
      jobs.push(job)
    }
    if (!jobs.length) return { outgoing }
    const firsts = await dispatcher.deliverFirst(jobs, inlineWaitMs)
    repository.insertCallbacks(writes, firsts)
    return { outgoing, afterCommit: () => dispatcher.written(firsts.map((f) => f.job)) }
  }
}

/**
 * The callbacks of notifications another stage of this process has just
 * committed, as the records that will carry them will give them
 * (CALLBACK_EARLY; dispatcher.deliverEarly). Their ids are the dispatcher's
 * to give until the records come; one that is not a valid notification is
 * left to its record, which dead-letters it.
 * @param {import('./message').WireMessage[]} messages on the notification topic
 * @returns {import('./message').Job[]}
 */
function earlyJobs (messages) {
  /** @type {import('./message').Job[]} */
  const jobs = []
  for (const m of messages) {
    let value
    try { value = JSON.parse(m.value) } catch { continue }
    // Not a record yet: no partition or offset.
    const { job } = callbackOf({ topic: m.topic, partition: -1, offset: -1n, key: m.key, value, headers: m.headers, timestamp: 0, raw: m.value })
    if (job) jobs.push(job)
  }
  return jobs
}

/**
 * The callback a notification record asks for, as the dispatcher holds it.
 * The record's trace context travels with it, so that its delivery (now, or
 * later by another replica) joins the transfer's trace. `content` is the
 * notification's text with that context: everything the callback is made of,
 * so a callback tried early (earlyJobs) and its record meet by it without
 * comparing fields.
 * @param {import('./message').IncomingMessage} record
 */
function callbackOf (record) {
  const { job, problem } = toJob(record)
  if (!job) return { problem }
  const trace = traceHeaders(record)
  Object.assign(job.headers, trace)
  job.content = `${trace.traceparent ?? ''} ${trace.tracestate ?? ''}\n${record.raw}`
  return { job }
}

/**
 * Read with BEGIN in the transaction's first round trip: which of the
 * batch's callbacks have rows already.
 * @param {import('./message').IncomingMessage[]} records
 */
function notificationPrefetch (records) {
  return [existingCallbacksQuery(records.map(callbackIdOf))]
}

module.exports = { createHandleBatch, notificationPrefetch, earlyJobs }
