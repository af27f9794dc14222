'use strict'

// Keeps this instance's leases alive and takes over callbacks other replicas
// left behind. Runs at start and then every `intervalMs` (a quarter of the
// lease, at most 5 s), one tick at a time:
//   1. renew the lease of every callback the dispatcher holds;
//   2. claim pending callbacks whose lease lapsed (a crashed replica) or was
//      released (a stopped one) — one atomic UPDATE … LIMIT n, so replicas
//      claim disjoint sets — and hand them to the dispatcher, which waits for
//      each one's next_attempt_at.
// A full claim means more may be waiting: the next tick runs at once.

/**
 * @param {{ repository: ReturnType<typeof import('./repository').createRepository>,
 *   dispatcher: ReturnType<typeof import('./dispatcher').createDispatcher>,
 *   logger: import('pino').Logger, intervalMs: number, batchSize?: number, maxHeld?: number }} opts
 */
function createRecovery ({ repository, dispatcher, logger, intervalMs, batchSize = 500, maxHeld = 20000 }) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer
  /** @type {Promise<void>} */
  let current = Promise.resolve()
  let stopped = false

  /** @returns {Promise<boolean>} whether a full batch was claimed */
  async function tick () {
    try {
      const ids = dispatcher.heldIds()
      if (ids.length) await repository.renewLeases(ids)
      // Back-pressure: do not take more than this instance can hold.
      const room = Math.min(batchSize, maxHeld - dispatcher.size())
      if (room <= 0 || stopped) return false
      const jobs = await repository.claimLapsed(room)
      if (jobs.length) {
        logger.info({ count: jobs.length }, 'took over pending callbacks')
        dispatcher.enqueue(jobs)
      }
      return jobs.length === room
    } catch (err) {
      logger.warn({ err }, 'callback recovery failed; will try again')
      return false
    }
  }

  /** @param {number} delay */
  function schedule (delay) {
    timer = setTimeout(() => {
      current = tick().then((full) => { if (!stopped) schedule(full ? 0 : intervalMs) })
    }, delay)
  }

  return {
    start () { schedule(0) },
    async stop () {
      stopped = true
      clearTimeout(timer)
      await current
    }
  }
}

module.exports = { createRecovery }
