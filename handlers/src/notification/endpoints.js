'use strict'

// Participants' callback endpoints, cached per participant for a short time.
// A type missing from a cached entry triggers a reload (rate-limited), so an
// endpoint registered a moment ago is found without waiting for the TTL.
// Concurrent lookups of one participant share one query; if a reload fails,
// the stale entry is used rather than failing a delivery on a DB hiccup.

/**
 * @typedef {{ registered: boolean, endpoints: Record<string, string> }} ParticipantEndpoints
 * @param {{ load: (participant: string) => Promise<ParticipantEndpoints>, ttlMs?: number, missReloadMs?: number,
 *   now?: () => number }} opts
 */
function createEndpointCache ({ load, ttlMs = 10000, missReloadMs = 1000, now = Date.now }) {
  /** @type {Map<string, ParticipantEndpoints & { at: number }>} */
  const cache = new Map()
  /** @type {Map<string, Promise<ParticipantEndpoints & { at: number }>>} */
  const loading = new Map()

  /** @param {string} participant */
  function reload (participant) {
    let pending = loading.get(participant)
    if (!pending) {
      pending = load(participant)
        .then((found) => {
          const entry = { ...found, at: now() }
          cache.set(participant, entry)
          return entry
        })
        .finally(() => loading.delete(participant))
      loading.set(participant, pending)
    }
    return pending
  }

  /**
   * The endpoint value (a URL or template) for one type; `value` is null when
   * the participant has none of that type.
   * @param {string} participant
   * @param {string} type
   * @returns {Promise<{ registered: boolean, value: string | null }>}
   */
  async function get (participant, type) {
    let entry = cache.get(participant)
    const age = entry ? now() - entry.at : Infinity
    if (!entry || age > ttlMs || (!entry.endpoints[type] && age > missReloadMs)) {
      try {
        entry = await reload(participant)
      } catch (err) {
        if (!entry) throw err
      }
    }
    return { registered: entry.registered, value: entry.endpoints[type] || null }
  }

  return { get }
}

module.exports = { createEndpointCache }
