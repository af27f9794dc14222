'use strict'

// SQL for consumer_progress: what a consumer group has applied per
// topic-partition and what it emitted, stored in the handler's transaction.

/**
 * @typedef {{ firstOffset: bigint, lastOffset: bigint, outgoing: import('./envelope').WireMessage[] }} ProgressRow
 */

/**
 * The highest applied offset of the partition, and the stored rows that
 * overlap `fromOffset` or later (their outgoing messages may still need to be
 * re-emitted). One statement.
 * @param {import('knex').Knex.Transaction} trx
 * @param {{ group: string, topic: string, partition: number, fromOffset: bigint }} where
 * @returns {Promise<{ appliedThrough: bigint, rows: ProgressRow[] }>}
 */
async function readProgress (trx, { group, topic, partition, fromOffset }) {
  const [rows] = await trx.raw(
    `SELECT first_offset, last_offset,
            IF(last_offset >= ?, outgoing, NULL) AS outgoing
       FROM consumer_progress
      WHERE consumer_group = ? AND topic = ? AND kafka_partition = ?
      ORDER BY last_offset
      FOR UPDATE`,
    [String(fromOffset), group, topic, partition])
  let appliedThrough = -1n
  /** @type {ProgressRow[]} */
  const overlapping = []
  for (const r of rows) {
    const lastOffset = BigInt(r.last_offset)
    if (lastOffset > appliedThrough) appliedThrough = lastOffset
    if (r.outgoing !== null) overlapping.push({ firstOffset: BigInt(r.first_offset), lastOffset, outgoing: JSON.parse(r.outgoing) })
  }
  return { appliedThrough, rows: overlapping }
}

/**
 * Records a newly applied range and drops rows the partition has moved past:
 * a batch starting at `fromOffset` means every earlier range was produced and
 * its Kafka offset committed, so its outgoing messages are no longer needed.
 * @param {import('knex').Knex.Transaction} trx
 * @param {{ group: string, topic: string, partition: number, fromOffset: bigint }} where
 * @param {ProgressRow} row
 */
async function recordProgress (trx, { group, topic, partition, fromOffset }, row) {
  await trx.raw(
    'DELETE FROM consumer_progress WHERE consumer_group = ? AND topic = ? AND kafka_partition = ? AND last_offset < ?',
    [group, topic, partition, String(fromOffset)])
  await trx.raw(
    `INSERT INTO consumer_progress (consumer_group, topic, kafka_partition, first_offset, last_offset, outgoing)
     VALUES (?, ?, ?, ?, ?, ?)`,
    [group, topic, partition, String(row.firstOffset), String(row.lastOffset), JSON.stringify(row.outgoing)])
}

module.exports = { readProgress, recordProgress }
