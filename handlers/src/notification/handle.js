'use strict'

// The consumer side: a batch of notification messages becomes one multi-row
// INSERT of callback rows, claimed by this instance, inside the runner's
// transaction. Only after the transaction (and the offsets) are committed are
// the callbacks handed to the dispatcher — through `afterCommit` — so nothing
// is ever delivered that a rollback could undo. Messages that can never be
// delivered are dead-lettered with the reason, through the runner's outgoing
// messages (stored with the batch, so a redelivery re-emits rather than repeats).

const { toJob, invalidToDeadLetter } = require('./message')

/**
 * @param {{ repository: ReturnType<typeof import('./repository').createRepository>,
 *   dispatcher: { enqueue: (jobs: import('./message').Job[]) => void }, deadLetterTopic: string }} deps
 */
function createHandleBatch ({ repository, dispatcher, deadLetterTopic }) {
  /**
   * @param {{ trx: import('knex').Knex.Transaction }} deps
   * @param {import('./message').IncomingMessage[]} messages
   */
  return async function handleBatch ({ trx }, messages) {
    /** @type {import('./message').Job[]} */
    const jobs = []
    /** @type {import('./message').OutgoingMessage[]} */
    const outgoing = []
    for (const record of messages) {
      const { job, problem } = toJob(record)
      // The stage span's trace context travels with the callback, so its
      // delivery (later, maybe by another replica) joins the transfer's trace.
      if (job && record.headers.traceparent) {
        job.headers.traceparent = record.headers.traceparent
        if (record.headers.tracestate) job.headers.tracestate = record.headers.tracestate
      }
      if (job) jobs.push(job)
      else outgoing.push(invalidToDeadLetter(record, problem, deadLetterTopic))
    }
    if (!jobs.length) return { outgoing }
    const owned = await repository.insertCallbacks(trx, jobs)
    return { outgoing, afterCommit: () => dispatcher.enqueue(owned) }
  }
}

module.exports = { createHandleBatch }
