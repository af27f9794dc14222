'use strict'

// The partitioner every producer uses: the Java client's (murmur2 of the key,
// modulo the partition count), so keys land on the same partitions whichever
// client produced them. kafkajs's DefaultPartitioner computes the same hash
// with 64-bit BigInt arithmetic and allocates a filtered partition list per
// message; a CPU profile of the API at 1,000 transfers/s found it a twentieth
// of the process's JavaScript time (docs/performance.md, thirtieth round).
// Java's murmur2 is 32-bit integer arithmetic, which Math.imul does exactly.
// A unit test compares the partitions with kafkajs's for thousands of keys.

const SEED = 0x9747b28c
const M = 0x5bd1e995

/**
 * Kafka's murmur2 (org.apache.kafka.common.utils.Utils.murmur2).
 * @param {Buffer} data @returns {number} a signed 32-bit hash
 */
function murmur2 (data) {
  const length = data.length
  let h = SEED ^ length
  const length4 = length >>> 2
  for (let i = 0; i < length4; i++) {
    const i4 = i * 4
    let k = data[i4] | (data[i4 + 1] << 8) | (data[i4 + 2] << 16) | (data[i4 + 3] << 24)
    k = Math.imul(k, M)
    k ^= k >>> 24
    k = Math.imul(k, M)
    h = Math.imul(h, M) ^ k
  }
  const tail = length & ~3
  switch (length & 3) {
    case 3: h ^= data[tail + 2] << 16 // falls through
    case 2: h ^= data[tail + 1] << 8 // falls through
    case 1:
      h ^= data[tail]
      h = Math.imul(h, M)
  }
  h ^= h >>> 13
  h = Math.imul(h, M)
  h ^= h >>> 15
  return h | 0
}

const toPositive = (/** @type {number} */ x) => x & 0x7fffffff

/**
 * A kafkajs partitioner factory (`createPartitioner`): a message's own
 * partition if it names one; else murmur2 of its key modulo the topic's
 * partition count; else round robin over the partitions that have a leader.
 * @returns {(args: import('kafkajs').PartitionerArgs) => number}
 */
function javaCompatiblePartitioner () {
  /** @type {Map<string, number>} */
  const counters = new Map()
  return ({ topic, partitionMetadata, message }) => {
    if (message.partition !== null && message.partition !== undefined) return message.partition
    const key = message.key
    if (key !== null && key !== undefined) {
      return toPositive(murmur2(Buffer.isBuffer(key) ? key : Buffer.from(String(key)))) % partitionMetadata.length
    }
    const next = (counters.has(topic) ? counters.get(topic) : Math.floor(Math.random() * 0x7fffffff)) + 1
    counters.set(topic, next)
    const available = partitionMetadata.filter((p) => p.leader >= 0)
    return available.length ? available[toPositive(next) % available.length].partitionId : toPositive(next) % partitionMetadata.length
  }
}

module.exports = { murmur2, javaCompatiblePartitioner }
