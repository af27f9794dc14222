'use strict'

// Consumer lag per group and partition, read from the broker when Prometheus
// scrapes. Two admin requests per topic and group are cheap, but scrapes come
// from several Prometheus replicas and from people with curl: the value is
// cached and fetched again at most every `refreshMs`, one fetch at a time,
// and a scrape waits for a fetch only briefly before it serves what it has.

const { Gauge } = require('prom-client')
const { settledWithin } = require('../settled-within')

/** How long a scrape waits for a fetch in progress (healthy brokers answer in milliseconds). */
const SCRAPE_WAIT_MS = 1000

/**
 * @typedef {{ group: string, topic: string, partition: number, lag: number }} LagRow
 * @typedef {{ partition: number, high: string, low: string }} PartitionEnd as admin.fetchTopicOffsets() gives it
 * @typedef {{ topic: string, partitions: { partition: number, offset: string }[] }} GroupTopicOffsets as admin.fetchOffsets() gives it
 */

/**
 * Lag is the log-end offset minus the group's committed offset (the next
 * record it will read). A partition the group has never committed is read
 * from the start of the log (consumers subscribe from the beginning).
 * @param {string} group
 * @param {Map<string, PartitionEnd[]>} ends per topic
 * @param {GroupTopicOffsets[]} committed
 * @returns {LagRow[]}
 */
function toLagRows (group, ends, committed) {
  return committed.flatMap(({ topic, partitions }) => {
    const next = new Map(partitions.map((p) => [p.partition, Number(p.offset)]))
    return (ends.get(topic) || []).map(({ partition, high, low }) => {
      const offset = next.get(partition)
      const from = offset !== undefined && offset >= 0 ? offset : Number(low)
      return { group, topic, partition, lag: Math.max(0, Number(high) - from) }
    })
  })
}

/**
 * @param {import('kafkajs').Admin} admin
 * @param {Map<string, string[]>} groups topics per group id
 * @returns {Promise<LagRow[]>}
 */
async function fetchLag (admin, groups) {
  const topics = [...new Set([...groups.values()].flat())]
  /** @type {Map<string, PartitionEnd[]>} */
  const ends = new Map(await Promise.all(topics.map(async (topic) => /** @type {[string, PartitionEnd[]]} */ ([topic, await admin.fetchTopicOffsets(topic)]))))
  const perGroup = await Promise.all([...groups].map(async ([group, groupTopics]) =>
    toLagRows(group, ends, await admin.fetchOffsets({ groupId: group, topics: groupTopics }))))
  return perGroup.flat()
}

/**
 * @param {import('prom-client').Registry} registry
 * @param {{ admin: import('kafkajs').Admin, refreshMs: number, logger: import('pino').Logger, now?: () => number, scrapeWaitMs?: number }} opts
 *   scrapeWaitMs: how long a scrape waits for a fetch in progress
 */
function createConsumerLag (registry, { admin, refreshMs, logger, now = Date.now, scrapeWaitMs = SCRAPE_WAIT_MS }) {
  /** @type {Map<string, string[]>} */
  const groups = new Map()
  /** @type {LagRow[]} */
  let rows = []
  let fetchedAt = -Infinity
  /** @type {Promise<void> | null} */
  let fetching = null
  let closed = false

  async function refresh () {
    try {
      rows = await fetchLag(admin, groups)
    } catch (err) {
      // No value rather than a stale one: an alert on absent lag fires, a stale value would hide the problem.
      rows = []
      logger.warn({ err }, 'could not read consumer lag from the broker')
    } finally {
      // After a failure too: a broker that is away is asked again in refreshMs, not on every scrape.
      fetchedAt = now()
    }
  }

  async function current () {
    if (closed || !groups.size) return rows
    if (!fetching && now() - fetchedAt >= refreshMs) fetching = refresh().finally(() => { fetching = null })
    if (fetching) await settledWithin(fetching, scrapeWaitMs)
    return rows
  }

  // eslint-disable-next-line no-new -- registers itself with the registry
  new Gauge({
    name: 'switchyard_consumer_lag',
    help: 'Records on the partition that the consumer group has not yet committed (read from the broker on scrape, cached).',
    labelNames: ['group', 'topic', 'partition'],
    registers: [registry],
    async collect () {
      const latest = await current()
      this.reset()
      for (const r of latest) this.set({ group: r.group, topic: r.topic, partition: String(r.partition) }, r.lag)
    }
  })

  return {
    /** Includes a consumer group's lag on /metrics. @param {string} groupId @param {string[]} topics */
    watchGroup (groupId, topics) {
      groups.set(groupId, [...topics])
      fetchedAt = -Infinity
    },
    close () {
      closed = true
      rows = []
    }
  }
}

module.exports = { createConsumerLag, toLagRows }
