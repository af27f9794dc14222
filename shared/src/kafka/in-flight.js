'use strict'

/**
 * Counts work in progress, so that a stop can wait for it to finish.
 * @returns {{ run: <T>(work: () => Promise<T>) => Promise<T>, idle: () => Promise<void> }}
 */
function createInFlight () {
  let count = 0
  /** @type {(() => void)[]} */
  let waiters = []
  return {
    async run (work) {
      count++
      try {
        return await work()
      } finally {
        if (--count === 0) {
          const woken = waiters
          waiters = []
          for (const wake of woken) wake()
        }
      }
    },
    /** Resolves once nothing is in progress. */
    idle: () => (count === 0 ? Promise.resolve() : new Promise((resolve) => { waiters.push(() => resolve()) }))
  }
}

module.exports = { createInFlight }
