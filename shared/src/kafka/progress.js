'use strict'

// SQL for consumer_progress: per consumer group and topic-partition, the
// highest applied offset and what the latest chunk emitted, written in the
// handler's transaction. One row per partition is enough: a chunk starts only
// after the previous chunk's messages were acknowledged, so only the latest
// chunk's messages can still be unsent after a crash.

/**
 * @typedef {{ firstOffset: bigint, lastOffset: bigint, outgoing: import('./envelope').WireMessage[] }} ProgressRow
 */

/**
 * The statement reading the highest applied offset of the partition and the
 * latest chunk's record when it reaches `fromOffset` or later (its messages
 * may need re-emitting). It opens the transaction, so BEGIN travels with it;
 * the row lock fences a consumer that lost the partition.
 * @param {{ group: string, topic: string, partition: number, fromOffset: bigint }} where
 */
function progressQuery ({ group, topic, partition, fromOffset }) {
  return {
    sql: `SELECT first_offset, last_offset, IF(last_offset >= ?, outgoing, NULL) AS outgoing
       FROM consumer_progress
      WHERE consumer_group = ? AND topic = ? AND kafka_partition = ?
      FOR UPDATE`,
    bindings: [String(fromOffset), group, topic, partition]
  }
}

/**
 * @param {any[]} rows the result of progressQuery()
 * @returns {{ appliedThrough: bigint, last: ProgressRow | null }}
 */
function toProgress (rows) {
  if (!rows.length) return { appliedThrough: -1n, last: null }
  const r = rows[0]
  const lastOffset = BigInt(r.last_offset)
  return {
    appliedThrough: lastOffset,
    last: r.outgoing === null ? null : { firstOffset: BigInt(r.first_offset), lastOffset, outgoing: JSON.parse(r.outgoing) }
  }
}

/**
 * Records a newly applied chunk, replacing the previous one: added to the
 * transaction's write batch, so it travels with the handler's own writes.
 * @param {ReturnType<typeof import('../db/write-batch').createWriteBatch>} writes
 * @param {{ group: string, topic: string, partition: number }} where
 * @param {ProgressRow} row
 */
function recordProgress (writes, { group, topic, partition }, row) {
  writes.add(
    `INSERT INTO consumer_progress (consumer_group, topic, kafka_partition, first_offset, last_offset, outgoing)
     VALUES (?, ?, ?, ?, ?, ?)
     ON DUPLICATE KEY UPDATE first_offset = VALUES(first_offset), last_offset = VALUES(last_offset), outgoing = VALUES(outgoing)`,
    [group, topic, partition, String(row.firstOffset), String(row.lastOffset), JSON.stringify(row.outgoing)])
}

module.exports = { progressQuery, toProgress, recordProgress }
