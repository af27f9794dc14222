'use strict'

// A produce request's body (versions 3–7, uncompressed record batches) in one
// pass into one buffer. kafkajs 2.2.4 builds it from an Encoder per record and
// per header, each starting as a zero-filled 512-byte buffer that grows by
// copying, allocates a Buffer for every varint, and copies every record three
// more times on the way up (batch, partition, topic). A CPU profile of the API
// at 1,000 transfers/s put a sixth of its JavaScript time in that encoding
// (docs/performance.md, thirtieth round). Here every size is computed first,
// then each byte is written once: strings straight from the JavaScript string
// into the buffer, varints in place.
//
// The bytes are kafkajs's, byte for byte: a unit test compares the two on
// every shape the producer can be handed (keys, values and headers as strings,
// Buffers or null, header arrays, timestamps, several topics and partitions,
// transactional fields). The broker checks each batch's CRC (crc32c.js), and every
// integration test produces through this encoder.

const Encoder = require('kafkajs/src/protocol/encoder')
const { crc32c } = require('./crc32c')

const MAGIC_BYTE = 2
const TRANSACTIONAL_MASK = 16
// firstOffset, length, partitionLeaderEpoch, magic, crc
const BATCH_HEAD = 8 + 4 + 4 + 1 + 4
// attributes, lastOffsetDelta, firstTimestamp, maxTimestamp, producerId, producerEpoch, firstSequence, record count
const BATCH_BODY_HEAD = 2 + 4 + 8 + 8 + 8 + 2 + 4 + 4
const NONE = 0

/** @param {number} n a 32-bit integer @returns {number} its zigzag form, unsigned */
const zigzag32 = (n) => ((n << 1) ^ (n >> 31)) >>> 0

/** @param {number} u an unsigned 32-bit integer */
function sizeOfUVarInt (u) {
  let bytes = 1
  while (u >= 0x80) { bytes++; u >>>= 7 }
  return bytes
}

const sizeOfVarInt = (/** @type {number} */ n) => sizeOfUVarInt(zigzag32(n))

/** @param {number | bigint} n a 64-bit integer @returns {bigint} its zigzag form */
function zigzag64 (n) {
  const v = BigInt.asIntN(64, BigInt(n))
  return BigInt.asUintN(64, (v << 1n) ^ (v >> 63n))
}

/** @param {number} n */
function sizeOfVarLong (n) {
  if (n >= -0x40000000 && n < 0x40000000) return sizeOfUVarInt(zigzag32(n))
  let z = zigzag64(n)
  let bytes = 1
  while (z >= 0x80n) { bytes++; z >>= 7n }
  return bytes
}

/** @param {any} v a 64-bit value as kafkajs takes it: number, string, bigint or its Long */
const toBigInt = (v) => typeof v === 'bigint' ? v : (v !== null && typeof v === 'object' && typeof v.value === 'bigint') ? v.value : BigInt(v)

/**
 * What a value is written as: null, a Buffer as it is, anything else as the
 * UTF-8 of its String() (kafkajs's writeVarIntBytes).
 * @param {any} v @returns {{ buf: Buffer | null, str: string | null, size: number }}
 */
function bytesOf (v) {
  if (v === null || v === undefined) return { buf: null, str: null, size: -1 }
  if (Buffer.isBuffer(v)) return { buf: v, str: null, size: v.length }
  const str = String(v)
  return { buf: null, str, size: Buffer.byteLength(str, 'utf8') }
}

const sizeOfBytes = (/** @type {{ size: number }} */ b) => b.size < 0 ? sizeOfVarInt(-1) : sizeOfVarInt(b.size) + b.size

class Writer {
  /** @param {number} size */
  constructor (size) {
    this.buf = Buffer.allocUnsafe(size)
    this.offset = 0
  }

  /** @param {number} u an unsigned 32-bit integer */
  uvarint (u) {
    const buf = this.buf
    let o = this.offset
    while (u >= 0x80) { buf[o++] = (u & 0x7f) | 0x80; u >>>= 7 }
    buf[o++] = u
    this.offset = o
  }

  /** @param {number} n */
  varint (n) { this.uvarint(zigzag32(n)) }

  /** @param {number} n */
  varlong (n) {
    if (n >= -0x40000000 && n < 0x40000000) return this.uvarint(zigzag32(n))
    let z = zigzag64(n)
    while (z >= 0x80n) { this.buf[this.offset++] = Number(z & 0x7fn) | 0x80; z >>= 7n }
    this.buf[this.offset++] = Number(z)
  }

  /** @param {number} n */
  int8 (n) { this.offset = this.buf.writeInt8(n, this.offset) }
  /** @param {number} n */
  int16 (n) { this.offset = this.buf.writeInt16BE(n, this.offset) }
  /** @param {number} n */
  int32 (n) { this.offset = this.buf.writeInt32BE(n, this.offset) }
  /** @param {number} n */
  uint32 (n) { this.offset = this.buf.writeUInt32BE(n, this.offset) }
  /** @param {any} v */
  int64 (v) { this.offset = this.buf.writeBigInt64BE(BigInt.asIntN(64, toBigInt(v)), this.offset) }

  /** A nullable STRING: int16 length (-1 for null), then UTF-8. @param {string | null} s */
  string (s) {
    if (s === null || s === undefined) return this.int16(-1)
    const size = Buffer.byteLength(s, 'utf8')
    this.int16(size)
    this.offset += this.buf.write(s, this.offset, size, 'utf8')
  }

  /** varint length, then the bytes (bytesOf). @param {{ buf: Buffer | null, str: string | null, size: number }} b */
  bytes (b) {
    this.varint(b.size)
    if (b.buf) this.offset += b.buf.copy(this.buf, this.offset)
    else if (b.str !== null) this.offset += this.buf.write(b.str, this.offset, b.size, 'utf8')
  }
}

/**
 * @typedef {{ key?: any, value?: any, headers?: Record<string, any>, timestamp?: number | string }} Message
 * @typedef {{ partition: number, firstSequence?: number, messages: Message[] }} PartitionData
 * @typedef {{ topic: string, partitions: PartitionData[] }} TopicData
 */

/**
 * One partition's record batch, sized: its records' parts and the batch's fields.
 * @param {PartitionData} data @param {number} dateNow the time records without a timestamp get
 */
function planBatch ({ messages }, dateNow) {
  // As kafkajs: the timestamps given, sorted as sort() sorts them (as
  // strings), else now.
  const given = messages.map((m) => m.timestamp).filter((t) => t != null).sort()
  const timestamps = given.length === 0 ? [dateNow] : given
  const firstTimestamp = timestamps[0]
  const maxTimestamp = timestamps[timestamps.length - 1]
  let recordsSize = 0
  const records = messages.map((m, i) => {
    const timestampDelta = /** @type {number} */ (/** @type {any} */ (m.timestamp || dateNow) - /** @type {any} */ (firstTimestamp))
    const key = bytesOf(m.key)
    const value = bytesOf(m.value)
    const headers = []
    const h = m.headers || {}
    for (const name of Object.keys(h)) {
      const values = Array.isArray(h[name]) ? h[name] : [h[name]]
      // A header's name is written as its value is (a varint length, then UTF-8).
      for (const v of values) headers.push({ name: bytesOf(name), value: bytesOf(v) })
    }
    let headersSize = sizeOfVarInt(headers.length)
    for (const x of headers) headersSize += sizeOfBytes(x.name) + sizeOfBytes(x.value)
    const bodySize = 1 + sizeOfVarLong(timestampDelta) + sizeOfVarInt(i) + sizeOfBytes(key) + sizeOfBytes(value) + headersSize
    recordsSize += sizeOfVarInt(bodySize) + bodySize
    return { timestampDelta, key, value, headers, bodySize }
  })
  return { records, firstTimestamp, maxTimestamp, bodySize: BATCH_BODY_HEAD + recordsSize }
}

/**
 * The body of a produce request (v3–v7) with uncompressed record batches, as
 * kafkajs's produce/v3/request.js encodes it.
 * @param {{ acks: number, timeout: number, transactionalId?: string | null, producerId?: any,
 *   producerEpoch?: number, topicData: TopicData[] }} request
 * @param {number} [dateNow] the time records without a timestamp get
 * @returns {Buffer}
 */
function encodeProduceRequest ({ acks, timeout, transactionalId = null, producerId = -1, producerEpoch = 0, topicData }, dateNow = Date.now()) {
  const topics = topicData.map(({ topic, partitions }) => ({
    topic,
    partitions: partitions.map((p) => ({ data: p, batch: planBatch(p, dateNow) }))
  }))
  // transactional_id, acks, timeout, topic count
  let size = (transactionalId === null ? 2 : 2 + Buffer.byteLength(transactionalId, 'utf8')) + 2 + 4 + 4
  for (const t of topics) {
    size += 2 + Buffer.byteLength(t.topic, 'utf8') + 4
    for (const p of t.partitions) size += 4 + 4 + BATCH_HEAD + p.batch.bodySize
  }
  const w = new Writer(size)
  w.string(transactionalId)
  w.int16(acks)
  w.int32(timeout)
  w.int32(topics.length)
  const attributes = NONE | (transactionalId ? TRANSACTIONAL_MASK : 0)
  for (const t of topics) {
    w.string(t.topic)
    w.int32(t.partitions.length)
    for (const { data, batch } of t.partitions) {
      w.int32(data.partition)
      w.int32(BATCH_HEAD + batch.bodySize) // the record set: firstOffset, length, the batch
      w.int64(0)
      w.int32(4 + 1 + 4 + batch.bodySize) // from partitionLeaderEpoch to the end
      w.int32(0) // partitionLeaderEpoch
      w.int8(MAGIC_BYTE)
      const crcAt = w.offset
      w.offset += 4
      const bodyAt = w.offset
      w.int16(attributes)
      w.int32(batch.records.length - 1)
      w.int64(batch.firstTimestamp)
      w.int64(batch.maxTimestamp)
      w.int64(producerId)
      w.int16(producerEpoch)
      w.int32(data.firstSequence || 0)
      w.int32(batch.records.length)
      batch.records.forEach((r, i) => {
        w.varint(r.bodySize)
        w.int8(0)
        w.varlong(r.timestampDelta)
        w.varint(i)
        w.bytes(r.key)
        w.bytes(r.value)
        w.varint(r.headers.length)
        for (const x of r.headers) {
          w.bytes(x.name)
          w.bytes(x.value)
        }
      })
      w.buf.writeUInt32BE(crc32c(w.buf.subarray(bodyAt, w.offset)), crcAt)
    }
  }
  if (w.offset !== size) throw new Error(`produce request encoded to ${w.offset} bytes, ${size} planned`)
  return w.buf
}

/**
 * The buffer as the Encoder kafkajs's request framing expects from encode()
 * (it checks instanceof and reads .buffer).
 * @param {Buffer} buf
 */
function asEncoder (buf) {
  const e = Object.create(Encoder.prototype)
  e.buf = buf
  e.offset = buf.length
  return e
}

/**
 * Makes kafkajs's produce requests (versions 3–7, uncompressed) encode with
 * encodeProduceRequest. Other versions and compressed batches keep kafkajs's
 * own encoding.
 * @param {{ versions: string[], protocol: (opts: { version: number | string }) => (args: any) => { request: any, response: any } }} produce
 *   kafkajs's requests.Produce
 */
function useProduceEncoding (produce) {
  const original = produce.protocol
  produce.protocol = ({ version }) => {
    const make = original({ version })
    if (!make || Number(version) < 3 || Number(version) > 7) return make
    return (args) => {
      const made = make(args)
      if ((args.compression || NONE) !== NONE) return made
      made.request.encode = async () => asEncoder(encodeProduceRequest(args))
      return made
    }
  }
}

module.exports = { encodeProduceRequest, useProduceEncoding }
