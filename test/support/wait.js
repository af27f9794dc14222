'use strict'

/**
 * Polls until `check` returns a truthy value (which is returned). Tests wait
 * for conditions, never for fixed times.
 * @template T
 * @param {() => Promise<T> | T} check
 * @param {{ timeoutMs?: number, intervalMs?: number, what?: string }} [opts]
 * @returns {Promise<T>}
 */
async function waitUntil (check, { timeoutMs = 30000, intervalMs = 50, what = 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs
  let last
  for (;;) {
    try {
      const value = await check()
      if (value) return value
    } catch (err) { last = err }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last.message}` : ''}`)
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}

module.exports = { waitUntil }
