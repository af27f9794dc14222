'use strict'

// While MySQL or Kafka is away, the same warning comes back every few hundred
// milliseconds: knex's "Acquire connection error" with its stack for every
// query tried, a poller's failure for every tick. One line per minute says as
// much, with the count of those left out, and leaves the log readable.

/**
 * Says which occurrences of a repeating message to log: the first, then at
 * most one per `windowMs`, each with how many were left out since the last
 * one logged. Messages are told apart by a key (a message's first line).
 * @param {{ windowMs?: number, now?: () => number, maxKeys?: number }} [opts]
 *   maxKeys: how many keys it remembers (the oldest is forgotten first)
 * @returns {(key: string) => { leftOut: number } | null} null: leave this one out
 */
function createRepeatGate ({ windowMs = 60000, now = Date.now, maxKeys = 100 } = {}) {
  /** @type {Map<string, { at: number, leftOut: number }>} */
  const seen = new Map()
  return function pass (key) {
    const t = now()
    const last = seen.get(key)
    if (last && t - last.at < windowMs) {
      last.leftOut++
      return null
    }
    seen.delete(key)
    seen.set(key, { at: t, leftOut: 0 })
    if (seen.size > maxKeys) seen.delete(/** @type {string} */ (seen.keys().next().value))
    return { leftOut: last ? last.leftOut : 0 }
  }
}

module.exports = { createRepeatGate }
