'use strict'

// Keeps this instance's leases alive and takes over callbacks other replicas
// left behind. Runs at start and then every `intervalMs` (a quarter of the
// lease, at most 5 s), one tick at a time:
//   0. callbacks tried before their rows were written, and still waiting for
//      the consumer to say the rows are committed a tick later: if the rows
//      are there, their commit succeeded while the database reported an error
//      (the retry found the batch applied, so the consumer never said so).
//      Their outcomes since go to the write buffer at last;
//   1. renew the lease of every callback the dispatcher holds, and drop those
//      another replica has taken over meanwhile (this one's renewals failed
//      for longer than the lease);
//   2. claim pending callbacks whose lease lapsed (a crashed replica) or was
//      released (a stopped one) — one atomic UPDATE … LIMIT n, so replicas
//      claim disjoint sets — and hand them to the dispatcher, which waits for
//      each one's next_attempt_at.
// A full claim means more may be waiting: the next tick runs at once.

const { createPoller } = require('../common/poller')

/**
 * @param {{ repository: ReturnType<typeof import('./repository').createRepository>,
 *   dispatcher: ReturnType<typeof import('./dispatcher').createDispatcher>,
 *   logger: import('pino').Logger, intervalMs: number, batchSize?: number, maxHeld?: number }} opts
 */
function createRecovery ({ repository, dispatcher, logger, intervalMs, batchSize = 500, maxHeld = 20000 }) {
  const poller = createPoller({ tick, logger, what: 'callback recovery', errorDelayMs: intervalMs })

  /** @returns {Promise<number>} when to look again: at once after a full batch */
  async function tick () {
    await writeUnheard()
    const ids = dispatcher.heldIds()
    const lost = ids.length ? await repository.renewLeases(ids) : []
    if (lost.length) {
      logger.warn({ count: lost.length }, 'lost the lease of callbacks that another instance took over; dropping them here')
      dispatcher.forget(lost)
    }
    // Back-pressure: do not take more than this instance can hold.
    const room = Math.min(batchSize, maxHeld - dispatcher.size())
    if (room <= 0 || !poller.running) return intervalMs
    const jobs = await repository.claimLapsed(room)
    if (jobs.length) {
      logger.info({ count: jobs.length }, 'took over pending callbacks')
      dispatcher.enqueue(jobs)
    }
    return jobs.length === room ? 0 : intervalMs
  }

  // Rows appear the moment their commit does; one not there minutes later
  // belongs to a batch that was dead-lettered or moved to another replica.
  const UNHEARD_WINDOW_MS = 5 * 60 * 1000

  async function writeUnheard () {
    const now = Date.now()
    const waiting = dispatcher.unwrittenBetween(now - intervalMs - UNHEARD_WINDOW_MS, now - intervalMs)
    if (!waiting.length) return
    const found = new Set(await repository.writtenByMe(waiting.map((job) => job.callbackId)))
    const written = waiting.filter((job) => found.has(job.callbackId))
    if (!written.length) return
    logger.warn({ count: written.length }, 'callback rows were committed without the consumer hearing it; recording their outcomes since')
    dispatcher.written(written)
  }

  return { start: poller.start, stop: poller.stop }
}

module.exports = { createRecovery }
