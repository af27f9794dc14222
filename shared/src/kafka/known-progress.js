'use strict'

// What a consumer knows of its partitions' progress without asking the
// database: the last offset it applied itself in each, since it last joined
// its group. A consumer that reads before its transaction (run-consumer.js
// `readsFirst`, the notification handler) reads its progress rows and its own
// reads in a round trip of their own before it does anything; for the chunk
// after one it committed itself, whose records all come later, that round
// trip can only say what the consumer already knows: nothing of these
// records was applied, nothing is left to re-emit (a partition's next chunk
// starts only after the last one's messages were acknowledged), and no
// callback row of theirs exists. So it is skipped.
//
// The database stays the authority whenever this is not plainly so: after a
// (re)join of the group, the partitions may have had another owner, so the
// knowledge is dropped (`newGeneration`); a chunk that started before it and
// commits after it records nothing; a failed transaction forgets its
// partitions, since its commit may have happened with the answer lost; and
// a chunk that begins at or before the known offset (a redelivery) reads.
// What the read never fenced anyway (it takes no lock) is unchanged: two
// owners in the moment of a rebalance are told apart by their writes'
// primary keys.

function createKnownProgress () {
  let generation = 0
  /** @type {Map<string, bigint>} partition key → the last offset this consumer applied there */
  const through = new Map()

  return {
    /** The generation a chunk starts in: what it applies counts only if it is still current. */
    generation: () => generation,

    /** The group was (re)joined: every partition may have moved meanwhile. */
    newGeneration () {
      generation++
      through.clear()
    },

    /**
     * A transaction that started in generation `startedIn` committed records
     * of the partition up to `lastOffset`.
     * @param {string} key @param {bigint} lastOffset @param {number} startedIn
     */
    applied (key, lastOffset, startedIn) {
      if (startedIn !== generation) return
      const before = through.get(key)
      if (before === undefined || lastOffset > before) through.set(key, lastOffset)
    },

    /** A transaction over the partition failed: its outcome is the database's to say. @param {string} key */
    forget (key) {
      through.delete(key)
    },

    /**
     * The offset every record from `firstOffset` on is known to come after, or
     * undefined when the database must be asked.
     * @param {string} key @param {bigint} firstOffset
     * @returns {bigint | undefined}
     */
    freshAfter (key, firstOffset) {
      const known = through.get(key)
      return known !== undefined && firstOffset > known ? known : undefined
    }
  }
}

module.exports = { createKnownProgress }
