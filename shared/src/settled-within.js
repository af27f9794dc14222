'use strict'

/**
 * Waits for `promise` to settle, but no longer than `ms`. Resolves true when
 * it settled (fulfilled or rejected) in time, false when the time ran out;
 * never rejects. For health probes, metrics scrapes and shutdown drains.
 * @param {Promise<unknown>} promise @param {number} ms @returns {Promise<boolean>}
 */
async function settledWithin (promise, ms) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer
  const settled = promise.then(() => true, () => true)
  try {
    return await Promise.race([settled, new Promise((resolve) => { timer = setTimeout(() => resolve(false), ms) })])
  } finally {
    clearTimeout(timer)
  }
}

module.exports = { settledWithin }
