'use strict'

// What MariaDB spends on the switch's heaviest write statements, sent the way
// the switch sends them (text protocol: every value escaped into the SQL and
// parsed back by the server) and as server-side prepared statements (binary
// protocol: the statement parsed once per connection, the values sent typed).
// The statements are built by the switch's own code (the notification
// repository, the transfer repository, the consumer's progress record), so
// this measures what the pipeline sends today.
//
//   node perf/src/bench/sql-forms.js [--statements 600] [--rounds 4] [--rows 30]
//
// Each round runs every form back to back (A B A B …) in its own scratch
// database, committing every ten statements as a shared transaction does,
// and reads MariaDB's CPU from /proc (utime + stime of mariadbd) and its own
// from process.cpuUsage(). It prints µs per row: MariaDB's and the client's
// (mysql2's formatting and escaping, or its binary encoding). Local stack only.
//
// Then whole shared transactions' writes, ten transfers' worth each (three
// callbacks and their attempts, three transfer row updates, four state
// changes and four stored messages per transfer), three ways: as the switch
// sends them (one multi-statement query ending with COMMIT); as prepared
// statements pipelined in one write, each followed by a check of ROW_COUNT()
// and ended by a COMMIT that runs only if every check passed; and as prepared
// statements pipelined, with the COMMIT in a round trip of its own once every
// answer is in. The first and the last are the switch's own code
// (withFoldedTransaction, without and with DB_PREPARED_WRITES). Each
// transaction opens with a read in a round trip of its own, as the switch's
// chunks do. It prints MariaDB's and the client's CPU per transfer and each
// transaction's time.

const crypto = require('node:crypto')
const { parseCli, wholeNumber, runCli } = require('../cli-args')
const { ensureStack } = require('./sut')
const { processCpuMs } = require('./accounting')
const { createDb, createWriteBatch, withFoldedTransaction } = require('../../../shared/src/db')
const { createRepository, existingCallbacksQuery } = require('../../../handlers/src/notification/repository')
const { updateTransfers, insertStateChanges, transfersQuery } = require('../../../handlers/src/common/transfer-repository')
const { recordProgress, progressQuery } = require('../../../shared/src/kafka/progress')
const { pipeline } = require('../../../shared/src/db/pipeline')

const SCRATCH_DB = 'switchyard_sql_forms'
const COMMIT_EVERY = 10
/** Transfers whose writes one shared transaction carries in the second part. */
const TX_TRANSFERS = 10
/** After each pipelined write: false from the first failed one on (ROW_COUNT() is -1 after an error). */
const GUARD = 'SET @sy_ok = @sy_ok AND ROW_COUNT() >= 0'
const COMMIT_IF_OK = 'BEGIN NOT ATOMIC IF @sy_ok THEN COMMIT; ELSE ROLLBACK; END IF; END'

const b64 = (/** @type {number} */ n) => crypto.randomBytes(n).toString('base64url')
const hex = (/** @type {number} */ n) => crypto.randomBytes(n).toString('hex')

/**
 * Callbacks as the notification handler writes them after their first attempt
 * (DELIVERED, one attempt each), with the bench's headers and bodies.
 * @param {number} n @param {number} seq
 * @returns {import('../../../handlers/src/notification/dispatcher').FirstOutcome[]}
 */
function deliveredCallbacks (n, seq) {
  const at = new Date()
  return Array.from({ length: n }, (_, i) => {
    const transferId = crypto.randomUUID()
    const callbackId = `bench.batched-sqlforms.notification:0:${seq * n + i}@${b64(16)}`
    const job = {
      callbackId,
      participant: 'bsqlforms-r2',
      transferId,
      endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT',
      method: 'PUT',
      path: `/transfers/${transferId}`,
      headers: {
        'content-type': 'application/vnd.interoperability.transfers+json;version=1.1',
        date: at.toUTCString(),
        'fspiop-source': 'bsqlforms-e6',
        'fspiop-destination': 'bsqlforms-r2'
      },
      body: JSON.stringify({ fulfilment: b64(32), completedTimestamp: at.toISOString(), transferState: 'COMMITTED' }),
      attempts: 0,
      dueInMs: 0
    }
    return {
      job,
      state: { callbackId, status: 'DELIVERED', attempts: 1, lastError: null, nextAttemptAt: null, deliveredAt: at },
      attempts: [{ callbackId, attempt: 1, url: `http://127.0.0.1:35019/bsqlforms-r2/transfers/${transferId}`, statusCode: 200, error: null, durationMs: 3, at }]
    }
  })
}

/** A chunk's outgoing messages as the runner stores them (one per record). @param {number} n */
function outgoingMessages (n) {
  return Array.from({ length: n }, () => {
    const transferId = crypto.randomUUID()
    return {
      topic: 'bench.batched-sqlforms.notification',
      key: 'bsqlforms-r2',
      headers: { 'fspiop-source': 'bsqlforms-r2', 'fspiop-destination': 'bsqlforms-e6', 'content-type': 'application/vnd.interoperability.transfers+json;version=1.1' },
      value: JSON.stringify({ id: crypto.randomUUID(), type: 'notification', action: 'commit', transferId, payerFsp: 'bsqlforms-r2', payeeFsp: 'bsqlforms-e6', body: { fulfilment: b64(32), completedTimestamp: new Date().toISOString(), transferState: 'COMMITTED' } })
    }
  })
}

/**
 * The statement kinds measured: each makes the statements for one chunk of
 * `rows` records (a fresh set of rows every call).
 * @param {import('knex').Knex} db @param {number} rows @param {string[]} transferIds rows the UPDATE may change
 */
function statementKinds (db, rows, transferIds) {
  const repo = createRepository(db, { instanceId: 'sql-forms', leaseMs: 60000 })
  let seq = 0
  let next = 0
  /** @param {(writes: ReturnType<typeof createWriteBatch>) => void} fill */
  const built = (fill) => { const writes = createWriteBatch(); fill(writes); return writes.drain() }
  return {
    'callback INSERT': () => built((w) => repo.insertCallbacks(w, deliveredCallbacks(rows, seq++))).slice(0, 1),
    'callback_attempt INSERT': () => built((w) => repo.insertCallbacks(w, deliveredCallbacks(rows, seq++))).slice(1, 2),
    'transfer UPDATE (CASE per column)': () => built((w) => {
      const changes = new Map()
      for (let i = 0; i < rows; i++) {
        const id = transferIds[next++ % transferIds.length]
        changes.set(id, { state: next % 2 ? 'RECEIVED_FULFIL' : 'COMMITTED', fulfilment: b64(32), fulfil_hash: hex(32), completed_at: new Date(), payee_reserved: next % 2 })
      }
      updateTransfers(w, changes)
    }),
    'transfer_state_change INSERT': () => built((w) => insertStateChanges(/** @type {any} */ (db), w, Array.from({ length: rows }, () => ({ transfer_id: transferIds[next++ % transferIds.length], state: 'COMMITTED' })))),
    'transfer SELECT … FOR UPDATE': () => [transfersQuery(Array.from({ length: rows }, () => transferIds[next++ % transferIds.length]), { lock: true })],
    'callback SELECT (none there)': () => [existingCallbacksQuery(Array.from({ length: rows }, () => `bench.batched-sqlforms.notification:1:${seq++}@${b64(16)}`))],
    'consumer_progress SELECT … FOR UPDATE (per record)': () => [progressQuery({ group: 'sql-forms', topic: `sql-forms/${seq % 4}`, partition: seq++ % 4, fromOffset: 0n })],
    'consumer_progress upsert (per record)': () => built((w) => recordProgress(w, { group: 'sql-forms', topic: `sql-forms/${seq % 4}`, partition: seq++ % 4 }, { firstOffset: BigInt(seq * rows), lastOffset: BigInt(seq * rows + rows - 1), outgoing: outgoingMessages(rows) }))
  }
}

/**
 * @param {any} conn a mysql2 connection (callback API)
 * @param {'query' | 'execute'} how @param {string} sql @param {readonly any[]} bindings
 */
const send = (conn, how, sql, bindings) => new Promise((resolve, reject) => {
  conn[how](sql, bindings, (/** @type {any} */ err, /** @type {any} */ result) => (err ? reject(err) : resolve(result)))
})

/**
 * One shared transaction's writes for TX_TRANSFERS transfers, built by the switch's code.
 * @param {ReturnType<typeof statementKinds>} per3 kinds of 3 × TX_TRANSFERS rows
 * @param {ReturnType<typeof statementKinds>} per1 kinds of TX_TRANSFERS rows
 */
const transactionWrites = (per3, per1) => [
  ...per3['callback INSERT'](),
  ...per3['callback_attempt INSERT'](),
  ...[1, 2, 3].flatMap(() => per1['transfer UPDATE (CASE per column)']()),
  ...[1, 2, 3, 4].flatMap(() => per1['transfer_state_change INSERT']()),
  ...[1, 2, 3, 4].flatMap(() => per1['consumer_progress upsert (per record)']())
]

/** @param {({ result: any } | { error: any })[]} outcomes */
function mustSucceed (outcomes) {
  const failed = outcomes.find((o) => 'error' in o)
  if (failed && 'error' in failed) throw failed.error
}

/**
 * A shared transaction as the switch runs it (withFoldedTransaction): a read
 * opens it, then the writes and COMMIT go as `db` sends them.
 * @param {import('knex').Knex} db @param {{ sql: string, bindings: readonly any[] }[]} statements
 */
const asTheSwitch = (db, statements) => withFoldedTransaction(db, async ({ writes, begin }) => {
  await begin([OPENING_READ])
  for (const st of statements) writes.add(st.sql, st.bindings)
})

/** The read each transaction opens with, as the switch's chunks open theirs with their reads. */
const OPENING_READ = { sql: 'SELECT 1', bindings: [] }

/**
 * The ways of sending one transaction's writes: each resolves once committed.
 * The first and last are the switch's own code; the second is a prototype
 * that only this measurement sends.
 * @type {Record<string, (on: { conn: any, text: import('knex').Knex, prepared: import('knex').Knex },
 *   writes: { sql: string, bindings: readonly any[] }[]) => Promise<unknown>>}
 */
const TRANSACTION_FORMS = {
  'text, one query with COMMIT (the switch)': ({ text }, writes) => asTheSwitch(text, writes),
  'prepared, pipelined, guarded COMMIT': async ({ conn }, writes) => {
    await send(conn, 'query', `SET @sy_ok = 1; START TRANSACTION; ${OPENING_READ.sql}`, [])
    mustSucceed(await pipeline(conn, [...writes.flatMap((w) => [{ ...w, prepare: true }, { sql: GUARD, bindings: [] }]), { sql: COMMIT_IF_OK, bindings: [] }]))
  },
  'prepared, pipelined, COMMIT after (DB_PREPARED_WRITES)': ({ prepared }, writes) => asTheSwitch(prepared, writes)
}

/** Median of numbers. @param {number[]} xs */
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2 }

const USAGE = 'node perf/src/bench/sql-forms.js [--statements 600] [--rounds 4] [--rows 30] [--transactions 200]'

/** @param {() => never} help */
async function main (help) {
  const { values, help: wantsHelp } = parseCli({ options: { statements: { type: 'string', default: '600' }, rounds: { type: 'string', default: '4' }, rows: { type: 'string', default: '30' }, transactions: { type: 'string', default: '200' } } })
  if (wantsHelp) help()
  const statements = wholeNumber(values, 'statements', COMMIT_EVERY)
  const rounds = wholeNumber(values, 'rounds', 1)
  const rows = wholeNumber(values, 'rows', 1)
  const transactions = wholeNumber(values, 'transactions', 1)
  const say = (/** @type {string} */ m) => console.error(`[sql-forms ${new Date().toISOString().slice(11, 19)}] ${m}`)
  const { config, pids } = await ensureStack((m) => say(`stack: ${m}`), SCRATCH_DB)
  if (!pids.mariadb) throw new Error('sql-forms reads MariaDB\'s CPU from /proc: it needs the local stack\'s MariaDB (DB_HOST on this machine)')
  const mariadb = /** @type {number} */ (pids.mariadb)
  const db = createDb({ ...config, DB_POOL_MAX: 2 }, { database: SCRATCH_DB })
  const conn = await db.client.acquireConnection()
  /** @type {import('knex').Knex[]} */
  const closing = []
  try {
    for (const table of ['callback_attempt', 'callback', 'transfer_state_change', 'consumer_progress', 'transfer']) await send(conn, 'query', `DELETE FROM ${table}`, [])
    const transferIds = Array.from({ length: Math.max(rows * 50, 2000) }, () => crypto.randomUUID())
    for (let i = 0; i < transferIds.length; i += 500) {
      const ids = transferIds.slice(i, i + 500)
      await send(conn, 'query', `INSERT INTO transfer (transfer_id, payer_fsp, payee_fsp, amount, currency, ilp_condition, expiration, request_hash, state)
        VALUES ${ids.map(() => "(?, 'bsqlforms-r2', 'bsqlforms-e6', 1, 'USD', ?, NOW(3), ?, 'RESERVED')").join(', ')}`, ids.flatMap((id) => [id, b64(32), hex(32)]))
    }
    const kinds = statementKinds(db, rows, transferIds)
    /** @type {Record<string, Record<string, { server: number[], client: number[] }>>} */
    const results = {}
    say(`${statements} statements of ${rows} rows per kind and form, ${rounds} rounds, COMMIT every ${COMMIT_EVERY}; MariaDB pid ${mariadb}`)
    for (let round = 1; round <= rounds; round++) {
      for (const [kind, make] of Object.entries(kinds)) {
        for (const how of /** @type {const} */ (['query', 'execute'])) {
          // Built before the clock starts: only sending them is measured.
          const batches = Array.from({ length: statements }, make)
          const server0 = processCpuMs(mariadb)
          const client0 = process.cpuUsage()
          await send(conn, 'query', 'BEGIN', [])
          for (let i = 0; i < statements; i++) {
            for (const s of batches[i]) await send(conn, how, s.sql, s.bindings)
            if (i % COMMIT_EVERY === COMMIT_EVERY - 1) { await send(conn, 'query', 'COMMIT', []); await send(conn, 'query', 'BEGIN', []) }
          }
          await send(conn, 'query', 'COMMIT', [])
          const client = process.cpuUsage(client0)
          const server = /** @type {number} */ (processCpuMs(mariadb)) - /** @type {number} */ (server0)
          const perRow = 1000 / (statements * rows)
          const r = ((results[kind] ||= {})[how] ||= { server: [], client: [] })
          r.server.push(server * perRow)
          r.client.push((client.user + client.system) / 1000 * perRow)
        }
      }
      say(`round ${round} of ${rounds} done`)
    }
    console.log(`MariaDB and client CPU per row, µs: median of ${rounds} rounds (min–max); text = the switch's query, binary = a prepared statement`)
    console.log('| statement | MariaDB, text | MariaDB, binary | binary ÷ text | client, text | client, binary |')
    console.log('| --- | --- | --- | --- | --- | --- |')
    const fmt = (/** @type {number[]} */ xs) => `${median(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`
    for (const [kind, forms] of Object.entries(results)) {
      const { query: text, execute: binary } = forms
      console.log(`| ${kind} | ${fmt(text.server)} | ${fmt(binary.server)} | ×${(median(binary.server) / median(text.server)).toFixed(2)} | ${fmt(text.client)} | ${fmt(binary.client)} |`)
    }

    // One connection each, so that every transaction of a form finds its statements prepared.
    const on = {
      conn,
      text: createDb({ ...config, DB_POOL_MIN: 1, DB_POOL_MAX: 1 }, { database: SCRATCH_DB }),
      prepared: createDb({ ...config, DB_PREPARED_WRITES: true, DB_POOL_MIN: 1, DB_POOL_MAX: 1 }, { database: SCRATCH_DB })
    }
    closing.push(on.text, on.prepared)
    const per3 = statementKinds(db, 3 * TX_TRANSFERS, transferIds)
    const per1 = statementKinds(db, TX_TRANSFERS, transferIds)
    /** @type {Record<string, { server: number[], client: number[], ms: number[] }>} */
    const txResults = {}
    say(`${transactions} shared transactions of ${TX_TRANSFERS} transfers' writes per form, ${rounds} rounds`)
    // Every statement shape prepared once before the clock starts, as a long-running connection would have.
    for (const form of Object.values(TRANSACTION_FORMS)) await form(on, transactionWrites(per3, per1))
    for (let round = 1; round <= rounds; round++) {
      for (const [name, form] of Object.entries(TRANSACTION_FORMS)) {
        const batches = Array.from({ length: transactions }, () => transactionWrites(per3, per1))
        const server0 = processCpuMs(mariadb)
        const client0 = process.cpuUsage()
        let ms = 0
        for (const writes of batches) {
          const t0 = performance.now()
          await form(on, writes)
          ms += performance.now() - t0
        }
        const client = process.cpuUsage(client0)
        const server = /** @type {number} */ (processCpuMs(mariadb)) - /** @type {number} */ (server0)
        const perTransfer = 1000 / (transactions * TX_TRANSFERS)
        const r = (txResults[name] ||= { server: [], client: [], ms: [] })
        r.server.push(server * perTransfer)
        r.client.push((client.user + client.system) / 1000 * perTransfer)
        r.ms.push(ms / transactions)
      }
      say(`transactions: round ${round} of ${rounds} done`)
    }
    console.log(`\nA shared transaction's writes, ${TX_TRANSFERS} transfers' worth: CPU per transfer (µs) and ms per transaction, median of ${rounds} rounds (min–max)`)
    console.log('| form | MariaDB µs / transfer | client µs / transfer | ms / transaction |')
    console.log('| --- | --- | --- | --- |')
    for (const [name, r] of Object.entries(txResults)) console.log(`| ${name} | ${fmt(r.server)} | ${fmt(r.client)} | ${fmt(r.ms)} |`)
  } finally {
    for (const other of closing) await other.destroy()
    db.client.releaseConnection(conn)
    await db.raw(`DROP DATABASE IF EXISTS ${SCRATCH_DB}`).catch(() => {})
    await db.destroy()
  }
}

if (require.main === module) runCli(USAGE, main)

module.exports = { statementKinds }
