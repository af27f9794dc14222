#!/usr/bin/env node
'use strict'

// npm run seed -- --transfers 10000000 [--participants 8] [--batch 2000] [--parallel 2] [--days 365]
//                 [--fill-factor 69] [--db name]
//
// The default database is switchyard_bench_seeded, the one `npm run bench -- --profile seeded`
// uses; the other profiles keep switchyard_bench small.
//
// Bulk-loads a historical ledger, not through the API: a few participants
// (accounts, net debit caps, funds in against the hub), then COMMITTED
// transfers with their state changes and position changes in large
// multi-row INSERTs, one transaction per batch that also adds the batch's
// changes to the seeded accounts — so positions equal the sum of their
// committed changes after every commit — and nothing that affects durability is switched off
// (innodb_flush_log_at_trx_commit stays as the server has it). Transfers are
// dated from --days ago up to two days ago, older than the bloom filter's
// warm-up window. Prints rows per second.
//
// Rows go in in id order, so every page of the id indexes ends up full
// (15/16), where a ledger grown by participants' random ids has pages about
// 69% full: the first random insert into a full page splits it, so on a
// freshly loaded ledger nearly every insert of the benchmark split a page
// in each id index. The load therefore ends by rebuilding the three big
// tables with innodb_fill_factor (--fill-factor, 69 by default; 100 skips
// it), as a sorted index build; `--transfers 0` only rebuilds.

const crypto = require('node:crypto')
const { parseCli, wholeNumber, runCli } = require('../cli-args')
const { ensureStack, benchConfig, SEEDED_DB } = require('./sut')
const { createDb } = require('../../../shared/src/db')
const { buildBatch, positionsUpdate, decimal } = require('./seed-rows')
const { requireRoom, BYTES_PER_SEEDED_TRANSFER } = require('./disk')
const { stackPaths } = require('../../../scripts/stack/paths')

const CURRENCY = 'USD'
const LIQUIDITY = 1e9 * 10000 // 1,000,000,000.0000 per participant, scaled

/** @param {import('knex').Knex} db @param {string} hubName @param {number} count */
async function createParticipants (db, hubName, count) {
  const tag = `seed${Date.now().toString(36)}`
  return db.transaction(async (trx) => {
    await trx.raw('INSERT IGNORE INTO participant (name) VALUES (?)', [hubName])
    const [[hub]] = await trx.raw('SELECT participant_id FROM participant WHERE name = ?', [hubName])
    await trx.raw('INSERT IGNORE INTO participant_account (participant_id, currency, ledger_account_type) VALUES (?, ?, ?)', [hub.participant_id, CURRENCY, 'HUB_RECONCILIATION'])
    const [[hubAccount]] = await trx.raw('SELECT account_id FROM participant_account WHERE participant_id = ? AND currency = ? AND ledger_account_type = ?', [hub.participant_id, CURRENCY, 'HUB_RECONCILIATION'])
    await trx.raw('INSERT IGNORE INTO participant_position (account_id, value) VALUES (?, 0)', [hubAccount.account_id])
    const [[hubPos]] = await trx.raw('SELECT value FROM participant_position WHERE account_id = ? FOR UPDATE', [hubAccount.account_id])
    let hubValue = Math.round(Number(hubPos.value) * 10000)
    const participants = []
    for (let i = 0; i < count; i++) {
      const name = `${tag}p${i}`
      const [ins] = await trx.raw('INSERT INTO participant (name) VALUES (?)', [name])
      const id = ins.insertId
      const [pos] = await trx.raw('INSERT INTO participant_account (participant_id, currency, ledger_account_type) VALUES (?, ?, ?)', [id, CURRENCY, 'POSITION'])
      const [set] = await trx.raw('INSERT INTO participant_account (participant_id, currency, ledger_account_type) VALUES (?, ?, ?)', [id, CURRENCY, 'SETTLEMENT'])
      await trx.raw('INSERT INTO participant_position (account_id, value, change_seq) VALUES (?, 0, 0), (?, ?, 1)', [pos.insertId, set.insertId, decimal(-LIQUIDITY)])
      await trx.raw('INSERT INTO participant_limit (account_id, limit_type, value) VALUES (?, ?, ?)', [pos.insertId, 'NET_DEBIT_CAP', decimal(LIQUIDITY)])
      // Funds in, as the admin API records it: settlement −X, hub reconciliation +X.
      const fundsId = crypto.randomUUID()
      await trx.raw('INSERT INTO funds_transfer (transfer_id, participant_id, account_id, action, amount, currency, state, reason, external_reference) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [fundsId, id, set.insertId, 'recordFundsIn', decimal(LIQUIDITY), CURRENCY, 'COMMITTED', 'seeded liquidity', 'seed.js'])
      hubValue += LIQUIDITY
      await trx.raw('INSERT INTO participant_position_change (account_id, transfer_id, `change`, value_after) VALUES (?, ?, ?, ?), (?, ?, ?, ?)',
        [set.insertId, fundsId, decimal(-LIQUIDITY), decimal(-LIQUIDITY), hubAccount.account_id, fundsId, decimal(LIQUIDITY), decimal(hubValue)])
      participants.push({ name, positionAccountId: pos.insertId })
    }
    await trx.raw('UPDATE participant_position SET value = ?, change_seq = change_seq + ? WHERE account_id = ?', [decimal(hubValue), count, hubAccount.account_id])
    return participants
  })
}

/** The tables whose id indexes the benchmark's random ids insert into. */
const REBUILT = ['transfer', 'transfer_state_change', 'participant_position_change']

/**
 * Rebuilds the big tables as a sorted index build with pages `fillFactor`%
 * full, as a ledger grown by random ids has them; the server's setting is
 * put back after.
 * @param {import('knex').Knex} db @param {number} fillFactor @param {(m: string) => void} say
 * @returns {Promise<number>} seconds
 */
async function rebuild (db, fillFactor, say) {
  const t0 = performance.now()
  const [[{ previous }]] = await db.raw('SELECT @@GLOBAL.innodb_fill_factor AS previous')
  await db.raw('SET GLOBAL innodb_fill_factor = ?', [fillFactor])
  try {
    for (const table of REBUILT) {
      say(`rebuilding ${table} with pages ${fillFactor}% full`)
      await db.raw('ALTER TABLE ?? FORCE', [table])
    }
  } finally {
    await db.raw('SET GLOBAL innodb_fill_factor = ?', [Number(previous)])
  }
  const s = (performance.now() - t0) / 1000
  say(`rebuilt in ${s.toFixed(1)} s`)
  return s
}

const USAGE = 'npm run seed -- [--transfers 1000000] [--participants 8] [--batch 2000] [--parallel 2] [--days 365] [--fill-factor 69] [--db name]'

/** @param {() => never} help */
async function main (help) {
  const { values, help: wantsHelp } = parseCli({ options: { transfers: { type: 'string', default: '1000000' }, participants: { type: 'string', default: '8' }, batch: { type: 'string', default: '2000' }, days: { type: 'string', default: '365' }, db: { type: 'string', default: SEEDED_DB }, parallel: { type: 'string', default: '2' }, 'fill-factor': { type: 'string', default: '69' } } })
  if (wantsHelp) help()
  const fillFactor = wholeNumber(values, 'fill-factor', 10, 100)
  const total = wholeNumber(values, 'transfers', 0)
  const batch = wholeNumber(values, 'batch', 1)
  const participantCount = wholeNumber(values, 'participants', 2)
  const days = wholeNumber(values, 'days', 1)
  const parallel = wholeNumber(values, 'parallel', 1)
  const say = (/** @type {string} */ m) => console.error(`[seed ${new Date().toISOString().slice(11, 19)}] ${m}`)
  const { config } = await ensureStack((m) => say(`stack: ${m}`), values.db)
  // Before the first row, not when MariaDB runs out of disk halfway (disk.js).
  requireRoom({ dir: stackPaths(config).mariadb, bytes: total * BYTES_PER_SEEDED_TRANSFER, what: `seeding ${total.toLocaleString('en')} transfers into ${values.db}` })
  const db = createDb({ ...benchConfig({ DB_NAME: values.db }), DB_POOL_MAX: parallel + 1 }, { database: values.db })
  const [[flush]] = await db.raw('SELECT @@innodb_flush_log_at_trx_commit AS f')
  say(`innodb_flush_log_at_trx_commit=${flush.f}; ${total} transfers in batches of ${batch} (${parallel} in flight)`)
  const participants = total > 0 ? await createParticipants(db, config.HUB_NAME, participantCount) : []
  const spanMs = days * 86400000
  const startMs = Date.now() - 2 * 86400000 - spanMs
  const running = { values: new Map() }
  const t0 = performance.now()
  let rows = 0; let done = 0; let lastReport = t0
  /** @type {Set<Promise<void>>} */
  const inFlight = new Set()
  for (let from = 0; from < total; from += batch) {
    const b = buildBatch({ from, count: Math.min(batch, total - from), total, startMs, spanMs, currency: CURRENCY, participants, running })
    const positions = positionsUpdate(b.deltas)
    const p = db.transaction(async (trx) => {
      for (const sql of b.statements) await trx.raw(sql)
      await trx.raw(positions)
    }).then(() => {
      rows += b.rows; done += b.rows / 7
      const now = performance.now()
      if (now - lastReport > 10000) { lastReport = now; say(`${Math.round(done)} transfers, ${rows} rows, ${Math.round(rows / ((now - t0) / 1000))} rows/s`) }
    })
    inFlight.add(p)
    p.finally(() => inFlight.delete(p))
    if (inFlight.size >= parallel) await Promise.race(inFlight)
  }
  await Promise.all(inFlight)
  const s = (performance.now() - t0) / 1000
  say(`done: ${total} transfers, ${rows} rows in ${s.toFixed(1)} s — ${Math.round(rows / s)} rows/s, ${Math.round(total / s)} transfers/s`)
  const rebuildS = fillFactor < 100 ? await rebuild(db, fillFactor, say) : 0
  await db.destroy()
  console.log(JSON.stringify({ transfers: total, rows, seconds: Math.round(s * 10) / 10, rowsPerSecond: Math.round(rows / s), fillFactor, rebuildSeconds: Math.round(rebuildS), durable: { innodbFlushLogAtTrxCommit: Number(flush.f) }, participants: participants.map((x) => x.name) }))
}

runCli(USAGE, main)
