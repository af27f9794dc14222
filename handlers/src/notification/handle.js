'use strict'

// The consumer side: a batch of notification messages becomes one multi-row
// INSERT of callback rows, claimed by this instance, sent with the runner's
// write batch and COMMIT. Only after the transaction (and the offsets) are committed are
// the callbacks handed to the dispatcher — through `afterCommit` — so nothing
// is ever delivered that a rollback could undo. Messages that can never be
// delivered are dead-lettered with the reason, through the runner's outgoing
// messages (stored with the batch, so a redelivery re-emits rather than repeats).

const { traceHeaders } = require('@switchyard/shared/kafka')
const { toJob, invalidToDeadLetter } = require('./message')

/**
 * @param {{ repository: ReturnType<typeof import('./repository').createRepository>,
 *   dispatcher: { enqueue: (jobs: import('./message').Job[]) => void }, deadLetterTopic: string, logger: import('pino').Logger }} deps
 */
function createHandleBatch ({ repository, dispatcher, deadLetterTopic, logger }) {
  /**
   * @param {{ writes: ReturnType<typeof import('@switchyard/shared/db').createWriteBatch> }} deps
   * @param {import('./message').IncomingMessage[]} messages
   */
  return async function handleBatch ({ writes }, messages) {
    /** @type {import('./message').Job[]} */
    const jobs = []
    /** @type {import('./message').OutgoingMessage[]} */
    const outgoing = []
    for (const record of messages) {
      const { job, problem } = toJob(record)
      // The stage span's trace context travels with the callback, so its
      // delivery (later, maybe by another replica) joins the transfer's trace.
      if (job) Object.assign(job.headers, traceHeaders(record))
      if (job) jobs.push(job)
      else outgoing.push(invalidToDeadLetter(record, problem, deadLetterTopic))
    }
    if (!jobs.length) return { outgoing }
    const owned = repository.insertCallbacks(writes, jobs)
    return {
      outgoing,
      afterCommit: () => {
        owned().then((mine) => dispatcher.enqueue(mine), (err) => {
          // They stay PENDING and claimed with a lease: recovery delivers them when it lapses.
          logger.warn({ err }, 'could not tell which callbacks are ours; recovery will deliver them')
        })
      }
    }
  }
}

module.exports = { createHandleBatch }
