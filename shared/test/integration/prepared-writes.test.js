'use strict'

// DB_PREPARED_WRITES against the real database: a transaction's writes go as
// prepared statements pipelined in one round trip, and COMMIT only once all
// of them succeeded. The server runs every pipelined command, so these check
// what must never happen: a write after a failed one, or after a deadlock,
// committing.

const { testConfig, unique } = require('../../../test/support/config')
const { createDb, withFoldedTransaction, createSharedTransactions } = require('../../src/db')

const config = testConfig()
/** One connection, so that a session's state left behind would show in the next test. */
let db
/** Plain text writes, for the other side of a deadlock and for looking. */
let plain

beforeAll(() => {
  db = createDb({ ...config, DB_PREPARED_WRITES: true, DB_POOL_MIN: 1, DB_POOL_MAX: 1 })
  plain = createDb({ ...config, DB_POOL_MIN: 0, DB_POOL_MAX: 2 })
})
afterAll(async () => { await db.destroy(); await plain.destroy() })

async function table () {
  const name = `prepared_${unique().replace(/[^a-z0-9]/gi, '_')}`
  await plain.raw(`CREATE TABLE ${name} (id INT PRIMARY KEY, note VARCHAR(64) NOT NULL, at DATETIME(3) NULL)`)
  return name
}

const rowsOf = async (name) => (await plain(name).select('id', 'note').orderBy('id')).map((r) => `${r.id}:${r.note}`)

/** The session's autocommit and the prepared statements the server holds for it. */
async function sessionState () {
  const [[row]] = await db.raw('SELECT @@autocommit AS autocommit, @@in_transaction AS inTransaction')
  return { autocommit: Number(row.autocommit), inTransaction: Number(row.inTransaction) }
}

const preparedCount = async () => Number((await plain.raw("SHOW GLOBAL STATUS LIKE 'Prepared_stmt_count'"))[0][0].Value)

test('the writes commit together, each statement gets its own result, and the session is as it was', async () => {
  const name = await table()
  const before = await preparedCount()
  /** @type {any[]} */
  const results = []
  const at = new Date('2026-11-29T12:34:56.789Z')
  await withFoldedTransaction(db, async ({ writes, begin }) => {
    const [[{ n }]] = await begin([{ sql: `SELECT COUNT(*) AS n FROM ${name}`, bindings: [] }])
    expect(Number(n)).toBe(0)
    writes.add(`INSERT INTO ${name} (id, note, at) VALUES (?, ?, ?), (?, ?, ?)`, [1, 'one "quoted" \\ back\'slash', at, 2, 'two', null], (r) => results.push(r.affectedRows))
    writes.add(`UPDATE ${name} SET note = CONCAT(note, ?) WHERE id IN (?, ?)`, ['!', 2, 3], (r) => results.push(r.affectedRows))
  })
  expect(await rowsOf(name)).toEqual(['1:one "quoted" \\ back\'slash', '2:two!'])
  const [[stored]] = await plain.raw(`SELECT at FROM ${name} WHERE id = 1`)
  expect(stored.at.toISOString()).toBe(at.toISOString())
  expect(results).toEqual([2, 1])
  expect(await sessionState()).toEqual({ autocommit: 1, inTransaction: 0 })
  // Both writes were prepared on the server (the table's own two statements).
  expect(await preparedCount()).toBeGreaterThanOrEqual(before + 2)
})

test('a write that fails rolls back the writes before and after it, though the server ran them', async () => {
  const name = await table()
  await plain(name).insert({ id: 5, note: 'there already' })
  const tried = withFoldedTransaction(db, async ({ writes, begin }) => {
    await begin([])
    writes.add(`INSERT INTO ${name} (id, note) VALUES (?, ?)`, [4, 'before'])
    writes.add(`INSERT INTO ${name} (id, note) VALUES (?, ?)`, [5, 'duplicate'])
    writes.add(`INSERT INTO ${name} (id, note) VALUES (?, ?)`, [6, 'after'])
  })
  await expect(tried).rejects.toMatchObject({ code: 'ER_DUP_ENTRY' })
  expect(await rowsOf(name)).toEqual(['5:there already'])
  expect(await sessionState()).toEqual({ autocommit: 1, inTransaction: 0 })
})

test('after a deadlock rolls the transaction back, the writes behind it in the pipeline do not commit on their own', async () => {
  const name = await table()
  await plain(name).insert([{ id: 1, note: 'a' }, { id: 2, note: 'b' }, { id: 99, note: 'free' }, ...Array.from({ length: 20 }, (_, i) => ({ id: 100 + i, note: 'weight' }))])
  const other = await plain.client.acquireConnection()
  const otherQuery = (sql, bindings = []) => new Promise((resolve, reject) => other.query(sql, bindings, (err, r) => (err ? reject(err) : resolve(r))))
  try {
    // The other transaction holds row 2 and many more (so that InnoDB picks the lighter one, ours, as the victim)…
    await otherQuery('START TRANSACTION')
    await otherQuery(`UPDATE ${name} SET note = 'held' WHERE id = 2 OR id >= 100`)
    let otherBlocked
    const tried = withFoldedTransaction(db, async ({ writes, begin }) => {
      // …ours holds row 1…
      await begin([{ sql: `SELECT id FROM ${name} WHERE id = 1 FOR UPDATE`, bindings: [] }])
      // …the other now waits for row 1…
      otherBlocked = otherQuery(`UPDATE ${name} SET note = 'other' WHERE id = 1`)
      await new Promise((resolve) => setTimeout(resolve, 300))
      // …and our first write waits for row 2: a deadlock. The two writes behind it run after InnoDB rolled ours back.
      writes.add(`UPDATE ${name} SET note = ? WHERE id = ?`, ['ours', 2])
      writes.add(`INSERT INTO ${name} (id, note) VALUES (?, ?)`, [3, 'after the deadlock'])
      writes.add(`UPDATE ${name} SET note = ? WHERE id = ?`, ['after the deadlock', 99])
    })
    await expect(tried).rejects.toMatchObject({ code: 'ER_LOCK_DEADLOCK' })
    await otherBlocked
    await otherQuery('COMMIT')
  } finally {
    plain.client.releaseConnection(other)
  }
  const rows = await rowsOf(name)
  expect(rows).not.toContain('3:after the deadlock')
  expect(rows).toContain('99:free')
  expect(rows).toContain('1:other')
  expect(rows).toContain('2:held')
  expect(await sessionState()).toEqual({ autocommit: 1, inTransaction: 0 })
})

test('a batch the server will not prepare goes as text, in one round trip as before', async () => {
  const name = await table()
  await withFoldedTransaction(db, async ({ writes, begin }) => {
    await begin([])
    // Two statements in one: fine for a text query, refused by PREPARE.
    writes.add(`INSERT INTO ${name} (id, note) VALUES (?, ?); INSERT INTO ${name} (id, note) VALUES (?, ?)`, [7, 'first', 8, 'second'])
  })
  expect(await rowsOf(name)).toEqual(['7:first', '8:second'])
  expect(await sessionState()).toEqual({ autocommit: 1, inTransaction: 0 })
})

test('chunks that share a transaction commit their prepared writes together, and a failing one runs again alone', async () => {
  const name = await table()
  await plain(name).insert({ id: 20, note: 'taken' })
  const shared = createSharedTransactions(db, { maxOpen: 1 })
  const insert = (id) => shared.run(async ({ writes, begin }) => {
    await begin([{ sql: 'SELECT 1', bindings: [] }])
    writes.add(`INSERT INTO ${name} (id, note) VALUES (?, ?)`, [id, `chunk ${id}`])
    return id
  }, { source: `c${id}` })
  // The first opens alone; the next three wait and share the second, where 20 fails.
  const results = await Promise.allSettled([insert(10), insert(11), insert(20), insert(12)])
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled'])
  expect(await rowsOf(name)).toEqual(['10:chunk 10', '11:chunk 11', '12:chunk 12', '20:taken'])
  expect(await sessionState()).toEqual({ autocommit: 1, inTransaction: 0 })
})

test('a write too large for one packet goes as text, which mysql2 splits', async () => {
  const name = `prepared_${unique().replace(/[^a-z0-9]/gi, '_')}`
  await plain.raw(`CREATE TABLE ${name} (id INT PRIMARY KEY, body LONGTEXT NOT NULL)`)
  const body = 'x'.repeat(17 * 1024 * 1024)
  await withFoldedTransaction(db, async ({ writes, begin }) => {
    await begin([])
    writes.add(`INSERT INTO ${name} (id, body) VALUES (?, ?)`, [1, body])
  })
  const [[row]] = await plain.raw(`SELECT LENGTH(body) AS n FROM ${name} WHERE id = 1`)
  expect(Number(row.n)).toBe(body.length)
  expect(await sessionState()).toEqual({ autocommit: 1, inTransaction: 0 })
})

// Last: it leaves the one connection writing as text.
test('a connection the server refuses more prepared statements writes as text from then on, without asking again', async () => {
  const name = await table()
  const [[{ limit }]] = await plain.raw('SELECT @@GLOBAL.max_prepared_stmt_count AS `limit`')
  const prepares = async () => Number((await plain.raw("SHOW GLOBAL STATUS LIKE 'Com_stmt_prepare'"))[0][0].Value)
  const write = (id) => withFoldedTransaction(db, async ({ writes, begin }) => {
    await begin([])
    writes.add(`INSERT INTO ${name} (id, note) VALUES (?, ?)`, [id, `row ${id}`])
  })
  await plain.raw('SET GLOBAL max_prepared_stmt_count = 0')
  try {
    await write(30)
  } finally {
    await plain.raw('SET GLOBAL max_prepared_stmt_count = ?', [Number(limit)])
  }
  // The server would prepare it now; the connection no longer asks.
  const before = await prepares()
  await write(31)
  expect(await prepares()).toBe(before)
  expect(await rowsOf(name)).toEqual(['30:row 30', '31:row 31'])
  expect(await sessionState()).toEqual({ autocommit: 1, inTransaction: 0 })
})
