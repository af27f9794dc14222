'use strict'

// Keeps this instance's leases alive and takes over callbacks other replicas
// left behind. Runs at start and then every `intervalMs` (a quarter of the
// lease, at most 5 s), one tick at a time:
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

  return { start: poller.start, stop: poller.stop }
}

module.exports = { createRecovery }
