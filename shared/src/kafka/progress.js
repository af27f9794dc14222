'use strict'

// SQL for consumer_progress: per consumer group and topic-partition, the
// highest applied offset and what the latest chunk emitted, written in the
// handler's transaction. One row per partition is enough: a chunk starts only
// after the previous chunk's messages were acknowledged, so only the latest
// chunk's messages can still be unsent after a crash.
//
// The stored messages are compressed (zlib, fastest level) once they are
// larger than a few hundred bytes: they are a copy of every payload a stage
// emits, rewritten with each transaction, and were a third of everything
// InnoDB wrote to its redo log per transfer. Read back only for a replay.

const zlib = require('node:zlib')

/** Stored forms shorter than this stay plain JSON text. */
const COMPRESS_FROM = 512
// A zlib stream's first byte (CMF: deflate, 32 KB window); stored JSON starts with '['.
const ZLIB_CMF = 0x78

/**
 * @typedef {{ firstOffset: bigint, lastOffset: bigint, outgoing: import('./envelope').WireMessage[] }} ProgressRow
 */

/**
 * The statement reading the highest applied offset of the partition and the
 * latest chunk's record when it reaches `fromOffset` or later (its messages
 * may need re-emitting). It opens the transaction, so BEGIN travels with it;
 * the row lock fences a consumer that lost the partition. A consumer that
 * reads first (run-consumer.js `readsFirst`, the notification handler) sends
 * it before its transaction, where it locks nothing: there, in the moment of
 * a rebalance, the overlap is caught by its writes' primary keys (a callback
 * row twice fails the INSERT), and the batch is retried; a chunk with no such
 * write cannot move the row back (recordProgress).
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
 * The stored form of a chunk's messages: JSON with each message's value
 * embedded as JSON (`v`) rather than as a string of JSON, which would escape
 * every quote of every payload twice over (JSON, then SQL) and make MariaDB
 * store, log and parse a fifth more. Rows written before this format keep
 * `value` as a string and read back as they were.
 * @param {import('./envelope').WireMessage[]} outgoing
 */
function encodeOutgoing (outgoing) {
  let out = '['
  for (let i = 0; i < outgoing.length; i++) {
    const { topic, key, headers, value } = outgoing[i]
    out += `${i ? ',' : ''}{"topic":${JSON.stringify(topic)},"key":${JSON.stringify(key)},"headers":${JSON.stringify(headers)},"v":${value}}`
  }
  return `${out}]`
}

/**
 * The column's value: the JSON text, compressed when it is large.
 * @param {import('./envelope').WireMessage[]} outgoing @returns {Buffer}
 */
function packOutgoing (outgoing) {
  const text = Buffer.from(encodeOutgoing(outgoing), 'utf8')
  return text.length < COMPRESS_FROM ? text : zlib.deflateSync(text, { level: zlib.constants.Z_BEST_SPEED })
}

/**
 * The column's value as JSON text: compressed or not, and rows written as
 * text before the column was binary (migration 5 uses it to go back).
 * @param {string | Buffer} stored @returns {string}
 */
function outgoingText (stored) {
  if (typeof stored === 'string') return stored
  return (stored[0] === ZLIB_CMF ? zlib.inflateSync(stored) : stored).toString('utf8')
}

/**
 * Reads the column's value back.
 * @param {string | Buffer} stored @returns {import('./envelope').WireMessage[]}
 */
function decodeOutgoing (stored) {
  return JSON.parse(outgoingText(stored)).map((/** @type {any} */ m) => ({
    topic: m.topic,
    key: m.key,
    headers: m.headers,
    value: 'v' in m ? JSON.stringify(m.v) : m.value
  }))
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
    last: r.outgoing === null ? null : { firstOffset: BigInt(r.first_offset), lastOffset, outgoing: decodeOutgoing(r.outgoing) }
  }
}

/**
 * Records a newly applied chunk, replacing the previous one: added to the
 * transaction's write batch, so it travels with the handler's own writes.
 * Progress never goes back: a consumer that read first (no lock) and lost
 * its partition meanwhile may commit a chunk after the new owner committed
 * later ones, and its row would otherwise make those look unapplied and drop
 * their messages to replay. MariaDB assigns left to right, so the first two
 * compare with the stored last_offset before it changes.
 * @param {ReturnType<typeof import('../db/write-batch').createWriteBatch>} writes
 * @param {{ group: string, topic: string, partition: number }} where
 * @param {ProgressRow} row
 */
function recordProgress (writes, { group, topic, partition }, row) {
  writes.add(
    `INSERT INTO consumer_progress (consumer_group, topic, kafka_partition, first_offset, last_offset, outgoing)
     VALUES (?, ?, ?, ?, ?, ?)
     ON DUPLICATE KEY UPDATE
       first_offset = IF(VALUES(last_offset) >= last_offset, VALUES(first_offset), first_offset),
       outgoing = IF(VALUES(last_offset) >= last_offset, VALUES(outgoing), outgoing),
       last_offset = GREATEST(last_offset, VALUES(last_offset))`,
    [group, topic, partition, String(row.firstOffset), String(row.lastOffset), packOutgoing(row.outgoing)])
}

module.exports = { progressQuery, toProgress, recordProgress, encodeOutgoing, packOutgoing, outgoingText, decodeOutgoing }
