'use strict'

// A consumer's offsets are committed to Kafka at most once per interval, off
// the path between one fetch and the next.
//
// kafkajs's autoCommit commits what has been resolved at the end of every
// batch, whatever autoCommitInterval says (that only adds commits within a
// batch: tulios/kafkajs#759, #1014), and the next fetch waits for it. A busy
// consumer fetches every few milliseconds, so it paid an OffsetCommit round
// trip — a request for the broker to append to __consumer_offsets — per
// fetch: as many requests as its fetches. The runner therefore turns
// autoCommit off and notes here what it has finished (effects committed,
// messages acknowledged); the notes are committed every `intervalMs`, one
// request for every partition that moved.
//
// Committing later only widens what a crash redelivers, and the progress
// table makes a redelivery harmless (DESIGN.md rule 1): a redelivered record
// is not applied again, and what it emitted is emitted again. A graceful stop
// and a rebalance commit what is finished first (run-consumer.js), so they
// redeliver no more than before.

/**
 * @typedef {{ topic: string, partition: number, offset: string }} TopicPartitionOffset
 *   offset: the next record to consume (Kafka's convention)
 */

/**
 * @param {{ commit: (offsets: TopicPartitionOffset[]) => Promise<unknown>, intervalMs: number,
 *   logger: Pick<import('pino').Logger, 'warn'> }} opts
 *   commit: sends one OffsetCommit request (kafkajs `consumer.commitOffsets`)
 */
function createOffsetCommits ({ commit, intervalMs, logger }) {
  // Per partition: the first offset not yet finished, and the newest one
  // committed. Only a newer `next` is noted: a chunk inside a re-emitted
  // stored range (run-consumer.js) finishes below an offset already noted
  // past that range, and must not move it back.
  /** @type {Map<string, { topic: string, partition: number, next: bigint, committed: bigint }>} */
  const partitions = new Map()
  /** @type {NodeJS.Timeout | null} */
  let timer = null
  // Commits go out one after another, each with the newest offsets, so an
  // older offset can never overtake a newer one.
  /** @type {Promise<void>} */
  let chain = Promise.resolve()

  const due = () => [...partitions.values()].filter((p) => p.next > p.committed)

  function schedule () {
    if (!timer) timer = setTimeout(() => { timer = null; flush() }, intervalMs)
  }

  async function send () {
    const sending = due().map((p) => ({ p, next: p.next }))
    if (!sending.length) return
    try {
      await commit(sending.map(({ p, next }) => ({ topic: p.topic, partition: p.partition, offset: String(next) })))
      for (const { p, next } of sending) if (next > p.committed) p.committed = next
    } catch (err) {
      // The offsets stay due, and the next interval tries again; meanwhile a
      // crash would only redeliver a little more.
      logger.warn({ err, partitions: sending.length }, 'committing offsets failed; will retry')
      schedule()
    }
  }

  /** Commits what is noted now; resolves when that commit has been answered (never rejects). */
  function flush () {
    if (timer) clearTimeout(timer)
    timer = null
    chain = chain.then(send)
    return chain
  }

  return {
    /**
     * Notes that everything before `next` on this partition is finished.
     * @param {string} topic @param {number} partition @param {bigint} next
     */
    done (topic, partition, next) {
      const key = `${topic}:${partition}`
      let p = partitions.get(key)
      if (!p) partitions.set(key, (p = { topic, partition, next: -1n, committed: -1n }))
      if (next <= p.next) return
      p.next = next
      schedule()
    },
    flush,
    /** Partitions with finished records not yet committed. */
    pendingCount: () => due().length,
    /**
     * Commits what is noted and stops the timer. Waits at most `timeoutMs`
     * (kafkajs retries a commit while the broker is away): a stop must not
     * hang on it, and what it leaves uncommitted is only redelivered.
     */
    async close (timeoutMs = 5000) {
      /** @type {NodeJS.Timeout | undefined} */
      let giveUp
      const late = new Promise((resolve) => { giveUp = setTimeout(() => resolve(true), timeoutMs) })
      const timedOut = await Promise.race([flush().then(() => false), late])
      clearTimeout(giveUp)
      if (timer) clearTimeout(timer)
      timer = null
      if (timedOut) logger.warn({ partitions: due().length, timeoutMs }, 'offsets not committed at stop; their records will be redelivered, and are applied once')
    }
  }
}

module.exports = { createOffsetCommits }
