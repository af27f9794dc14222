'use strict'

// Items pushed within one turn of the event loop, handed over together at its
// end: the callback thread and the main thread (handlers' http-thread.js)
// exchange one message per turn, not one per request, and the pipelined HTTP
// client (http/client.js) writes a turn's requests to one origin together.

/**
 * @template T
 * @param {(items: T[]) => void} deliver called with each turn's items (never with none)
 */
function createPerTurn (deliver) {
  /** @type {T[]} */
  let items = []
  let scheduled = false
  /** Hands over what has been pushed, now. */
  const flush = () => {
    scheduled = false
    const batch = items
    items = []
    if (batch.length) deliver(batch)
  }
  return {
    flush,
    /** @param {T} item */
    push (item) {
      items.push(item)
      if (!scheduled) { scheduled = true; setImmediate(flush) }
    }
  }
}

module.exports = { createPerTurn }
