'use strict'

// Rows of a historical ledger, generated in memory for seed.js: COMMITTED
// transfers between a few participants, each with its four state changes
// and its two position changes (payer +amount, payee −amount) carrying the
// running value of each account. Amounts are integers of 1/10,000 (the
// DECIMAL(18,4) scale), exact in a JS number far past 10 million transfers.

const crypto = require('node:crypto')

const STATES = ['RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_FULFIL', 'COMMITTED']

/** A scaled integer (1/10,000) as a DECIMAL literal. @param {number} v */
function decimal (v) {
  const sign = v < 0 ? '-' : ''
  const a = Math.abs(v)
  return `${sign}${Math.floor(a / 10000)}.${String(a % 10000).padStart(4, '0')}`
}

/**
 * The id of transfer `k` of `total`: a version 4 UUID, like the ids
 * participants (and the benchmark) send, whose first 32 bits place it at
 * (k + a random fraction) / total of the way through the id space. Ids rise
 * with k, so the load appends to every id index in order (fast), yet the
 * seeded rows cover the whole range the benchmark's random ids fall into:
 * its reads and inserts go through the seeded pages, as on a real ledger.
 * (Time-ordered ids filled one narrow band the benchmark's ids almost never
 * reached, so the seeded rows were never touched.)
 * @param {number} k @param {number} total @param {Buffer} rnd 14 random bytes
 */
function spreadUuid (k, total, rnd) {
  const top = Math.min(2 ** 32 - 1, Math.floor(((k + rnd.readUInt16BE(0) / 65536) * 2 ** 32) / total))
  const h = top.toString(16).padStart(8, '0') + rnd.subarray(2).toString('hex')
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`
}

/** @param {number} ms */
const sqlTime = (ms) => `'${new Date(ms).toISOString().slice(0, 23).replace('T', ' ')}'`

/**
 * @typedef {{ name: string, positionAccountId: number }} SeedParticipant
 * @typedef {{ values: Map<number, number> }} Running running value per account (for value_after)
 */

/**
 * One batch of transfers [from, from + count) as three multi-row INSERTs.
 * `running` is advanced in place.
 * @param {{ from: number, count: number, total: number, startMs: number, spanMs: number, currency: string,
 *   participants: SeedParticipant[], running: Running }} opts
 */
function buildBatch ({ from, count, total, startMs, spanMs, currency, participants, running }) {
  const p = participants.length
  const rnd = crypto.randomBytes(46 * count)
  const transfers = []
  const states = []
  const changes = []
  /** @type {Map<number, { delta: number, n: number }>} what this batch adds to each account */
  const deltas = new Map()
  const add = (/** @type {number} */ account, /** @type {number} */ v) => {
    const d = deltas.get(account) || { delta: 0, n: 0 }
    d.delta += v; d.n++
    deltas.set(account, d)
  }
  for (let j = 0; j < count; j++) {
    const k = from + j
    const at = Math.floor(startMs + (k * spanMs) / total)
    const r = rnd.subarray(46 * j, 46 * j + 46)
    const id = spreadUuid(k, total, r.subarray(0, 14))
    const payer = participants[k % p]
    const payee = participants[(k + 1 + (Math.floor(k / p) % (p - 1))) % p]
    const amount = ((k * 7919) % 10000 + 1) * 100 // 0.01 .. 100.00
    const preimage = r.subarray(14, 46)
    const condition = crypto.createHash('sha256').update(preimage).digest('base64url')
    const hash = crypto.createHash('sha256').update(id).digest('hex')
    const a = payer.positionAccountId
    const b = payee.positionAccountId
    const va = (running.values.get(a) || 0) + amount
    const vb = (running.values.get(b) || 0) - amount
    running.values.set(a, va)
    running.values.set(b, vb)
    add(a, amount)
    add(b, -amount)
    const done = at + 40
    transfers.push(`('${id}','${payer.name}','${payee.name}',${a},${b},${decimal(amount)},'${currency}','${condition}',${sqlTime(at + 60000)},'${hash}','COMMITTED','${preimage.toString('base64url')}','${hash}',${sqlTime(done)},${sqlTime(at)},${sqlTime(done)})`)
    for (let s = 0; s < STATES.length; s++) states.push(`('${id}','${STATES[s]}',${sqlTime(at + s * 10)})`)
    changes.push(`(${a},'${id}',${decimal(amount)},${decimal(va)},${sqlTime(at + 10)})`, `(${b},'${id}',${decimal(-amount)},${decimal(vb)},${sqlTime(done)})`)
  }
  return {
    rows: transfers.length + states.length + changes.length,
    deltas,
    statements: [
      'INSERT INTO transfer (transfer_id, payer_fsp, payee_fsp, payer_account_id, payee_account_id, amount, currency, ilp_condition, expiration, request_hash, state, fulfilment, fulfil_hash, completed_at, created_at, updated_at) VALUES ' + transfers.join(','),
      'INSERT INTO transfer_state_change (transfer_id, state, created_at) VALUES ' + states.join(','),
      'INSERT INTO participant_position_change (account_id, transfer_id, `change`, value_after, created_at) VALUES ' + changes.join(',')
    ]
  }
}

/**
 * The statement that adds a batch's changes to its accounts, in the batch's
 * own transaction: after every commit each account's value is the sum of its
 * committed changes, whatever order concurrent batches commit in.
 * @param {Map<number, { delta: number, n: number }>} deltas
 */
function positionsUpdate (deltas) {
  const rows = [...deltas].sort((x, y) => x[0] - y[0]).map(([id, d]) => `(${id},${decimal(d.delta)},${d.n})`)
  return `INSERT INTO participant_position (account_id, value, change_seq) VALUES ${rows.join(',')}
    ON DUPLICATE KEY UPDATE value = value + VALUES(value), change_seq = change_seq + VALUES(change_seq), updated_at = CURRENT_TIMESTAMP(3)`
}

module.exports = { buildBatch, positionsUpdate, decimal, spreadUuid }
