'use strict'

// Shared transactions against the real database: chunks ready together commit
// together, each with its own reads and writes; a failing chunk fails alone.

const { testConfig, unique } = require('../../../test/support/config')
const { createDb, createSharedTransactions } = require('../../src/db')

const config = testConfig()
let db

beforeAll(() => { db = createDb(config) })
afterAll(async () => { await db.destroy() })

/** A fresh table for one test. */
async function table () {
  const name = `shared_${unique().replace(/[^a-z0-9]/gi, '_')}`
  await db.raw(`CREATE TABLE ${name} (id VARCHAR(32) PRIMARY KEY, note VARCHAR(64) NOT NULL)`)
  return name
}

const rowsOf = async (name) => (await db(name).select('id').orderBy('id')).map((r) => r.id)

/**
 * Shared transactions (one open at a time unless `opts` say otherwise) that
 * record every group they run, and apart from it how long it was open and
 * how long it could take chunks for.
 * @param {Partial<Parameters<typeof createSharedTransactions>[1]>} [opts]
 */
function recording (opts = {}) {
  /** @type {any[]} */
  const groups = []
  /** @type {number[]} */
  const openMs = []
  /** @type {number[]} */
  const windows = []
  const shared = createSharedTransactions(db, { maxOpen: 1, ...opts, onGroup: ({ ms, windowMs, ...g }) => { groups.push(g); openMs.push(ms); windows.push(windowMs) } })
  return { shared, groups, openMs, windows }
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

function deferred () {
  /** @type {() => void} */
  let release = () => {}
  const promise = new Promise((resolve) => { release = () => resolve(undefined) })
  return { promise, release }
}

/**
 * A chunk's work: reads its connection and how many rows of the table it
 * sees, then inserts one row (with the write batch, like a handler).
 * @param {string} name @param {string} id
 * @param {{ before?: Promise<any>, begun?: () => void, fail?: Error, seen?: any[], countFrom?: string }} [opts]
 *   before: waits for it after its reads; begun: told when its reads are done; countFrom: the
 *   table it counts instead (one that does not exist makes its read fail)
 */
const insertWork = (name, id, { before, begun, fail, seen, countFrom = name } = {}) => async ({ writes, begin }) => {
  const [[conn], [count]] = await begin([
    { sql: 'SELECT CONNECTION_ID() AS id', bindings: [] },
    { sql: `SELECT COUNT(*) AS n FROM ${countFrom}`, bindings: [] }
  ])
  if (begun) begun()
  if (before) await before
  if (fail) throw fail
  writes.add(`INSERT INTO ${name} (id, note) VALUES (?, ?)`, [id, `from ${id}`], (result) => { if (seen) seen.push([id, result.affectedRows]) })
  return { id, connection: conn.id, before: Number(count.n) }
}

test('chunks ready together share one transaction; each keeps its own reads, writes and results', async () => {
  const name = await table()
  const { shared, groups } = recording()
  const seen = []
  const results = await Promise.all(['a', 'b', 'c'].map((id) => shared.run(insertWork(name, id, { seen }))))
  expect(results.map((r) => [r.id, r.before])).toEqual([['a', 0], ['b', 0], ['c', 0]])
  // One connection, one transaction, one commit.
  expect(new Set(results.map((r) => r.connection)).size).toBe(1)
  expect(groups).toEqual([{ members: 3, records: 3, rolledBack: false }])
  expect(seen).toEqual([['a', 1], ['b', 1], ['c', 1]])
  expect(await rowsOf(name)).toEqual(['a', 'b', 'c'])
})

test('the chunks\' reads go together with BEGIN in one round trip, and their writes with COMMIT in one more', async () => {
  const name = await table()
  // A pool of its own whose connections note every query sent (the database answers as ever).
  const counted = createDb(config)
  /** @type {string[]} */
  const sent = []
  const acquire = counted.client.acquireConnection.bind(counted.client)
  counted.client.acquireConnection = async () => {
    const conn = await acquire()
    if (!conn.noted) {
      const send = conn.query.bind(conn)
      conn.query = (sql, ...rest) => { sent.push(String(sql)); return send(sql, ...rest) }
      conn.noted = true
    }
    return conn
  }
  try {
    const shared = createSharedTransactions(counted, { maxOpen: 1 })
    const results = await Promise.all(['a', 'b', 'c'].map((id) => shared.run(insertWork(name, id))))
    expect(results.map((r) => r.before)).toEqual([0, 0, 0])
    expect(sent).toHaveLength(2)
    expect(sent[0].split(';\n')).toEqual(['START TRANSACTION', ...Array(3).fill(['SELECT CONNECTION_ID() AS id', `SELECT COUNT(*) AS n FROM ${name}`]).flat()])
    expect(sent[1].split(';\n').slice(-1)).toEqual(['COMMIT'])
    expect(await rowsOf(name)).toEqual(['a', 'b', 'c'])
  } finally {
    await counted.destroy()
  }
})

test('a lone chunk runs at once in a transaction of its own', async () => {
  const name = await table()
  const { shared, groups } = recording()
  expect((await shared.run(insertWork(name, 'solo'))).id).toBe('solo')
  expect(groups).toEqual([{ members: 1, records: 1, rolledBack: false }])
  expect(await rowsOf(name)).toEqual(['solo'])
})

test('each shared transaction tells how long it was open, from taking its chunks to its commit', async () => {
  const name = await table()
  const { shared, groups, openMs } = recording()
  const gate = deferred()
  const begun = deferred()
  const both = Promise.all([shared.run(insertWork(name, 'held', { before: gate.promise, begun: begun.release })), shared.run(insertWork(name, 'quick'))])
  // Held open, by the clock the measurement uses, from after its reads until released.
  await begun.promise
  const heldFrom = performance.now()
  await pause(150)
  const heldMs = performance.now() - heldFrom
  gate.release()
  await both
  expect(groups).toEqual([{ members: 2, records: 2, rolledBack: false }])
  expect(openMs[0]).toBeGreaterThanOrEqual(heldMs)
})

test('chunks that become ready while the shared transactions are open wait, and go together into the next', async () => {
  const name = await table()
  const { shared, groups } = recording()
  const gate = deferred()
  const begun = deferred()
  const first = shared.run(insertWork(name, 'first', { before: gate.promise, begun: begun.release }))
  // The first transaction is open; two more chunks arrive.
  await begun.promise
  const later = Promise.all([shared.run(insertWork(name, 'x')), shared.run(insertWork(name, 'y'))])
  gate.release()
  await first
  const [x, y] = await later
  // They began only after the first had committed: they see its row.
  expect([x.before, y.before]).toEqual([1, 1])
  expect(x.connection).toBe(y.connection)
  expect(groups).toEqual([{ members: 1, records: 1, rolledBack: false }, { members: 2, records: 2, rolledBack: false }])
  expect(await rowsOf(name)).toEqual(['first', 'x', 'y'])
})

test('with two open at once, a chunk does not wait for a slow one', async () => {
  const name = await table()
  const shared = createSharedTransactions(db, { maxOpen: 2 })
  const gate = deferred()
  const begun = deferred()
  const slow = shared.run(insertWork(name, 'slow', { before: gate.promise, begun: begun.release }))
  await begun.promise
  // Committed while the slow one is still open (it would never finish if it waited).
  expect((await shared.run(insertWork(name, 'quick'))).before).toBe(0)
  expect(await rowsOf(name)).toEqual(['quick'])
  gate.release()
  await slow
  expect(await rowsOf(name)).toEqual(['quick', 'slow'])
})

describe('with overlapCommit', () => {
  /**
   * A table with a row `lock` that another connection holds FOR UPDATE until
   * released: a chunk whose writes update it keeps its COMMIT on its way.
   */
  async function heldRow () {
    const name = await table()
    await db(name).insert({ id: 'lock', note: 'held' })
    const holder = await db.transaction()
    await holder.raw(`SELECT id FROM ${name} WHERE id = 'lock' FOR UPDATE`)
    return { name, release: () => holder.commit() }
  }

  /** A chunk that inserts its row and updates `lock` (which waits while it is held). @param {string} name @param {string} id */
  const blockedWork = (name, id) => async ({ writes, begin }) => {
    await begin([{ sql: 'SELECT CONNECTION_ID() AS id', bindings: [] }])
    writes.add(`INSERT INTO ${name} (id, note) VALUES (?, ?)`, [id, `from ${id}`])
    writes.add(`UPDATE ${name} SET note = ? WHERE id = 'lock'`, [`by ${id}`])
    return id
  }

  /** Resolves once a connection waits in the UPDATE of the held row: that transaction's writes and COMMIT are sent. @param {string} name */
  async function commitWaiting (name) {
    const waiting = async () => Number((await db.raw('SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE ?', [`UPDATE ${name} SET note%`]))[0][0].n)
    while (!(await waiting())) await pause(5)
  }

  /**
   * A shared transaction of two chunks (a lone chunk keeps its own transaction
   * until it commits) whose COMMIT waits for the held row: resolves once it
   * waits, with `first`, its chunks' results once it has committed.
   * @param {ReturnType<typeof createSharedTransactions>} shared @param {string} name
   * @param {(string | undefined)[]} [sources] whose chunks they are
   */
  async function firstWaiting (shared, name, sources = []) {
    const first = Promise.all([
      shared.run(blockedWork(name, 'first'), { source: sources[0] }),
      shared.run(insertWork(name, 'with-first'), { source: sources[1] })
    ])
    await commitWaiting(name)
    return { first }
  }

  test('the next one takes chunks, reads and commits while the one before waits for its COMMIT', async () => {
    const { name, release } = await heldRow()
    const { shared, groups } = recording({ overlapCommit: true })
    let firstDone = false
    const first = (await firstWaiting(shared, name)).first.then((v) => { firstDone = true; return v })
    // Two chunks ready together: one transaction, committed while the first still waits.
    const [x, y] = await Promise.all([shared.run(insertWork(name, 'x')), shared.run(insertWork(name, 'y'))])
    expect(firstDone).toBe(false)
    expect(x.connection).toBe(y.connection)
    // The first's row is not committed yet, so neither sees it (only `lock`).
    expect([x.before, y.before]).toEqual([1, 1])
    expect(groups).toEqual([{ members: 2, records: 2, rolledBack: false }])
    await release()
    expect((await first)[0]).toBe('first')
    expect(groups).toEqual([{ members: 2, records: 2, rolledBack: false }, { members: 2, records: 2, rolledBack: false }])
    expect(await rowsOf(name)).toEqual(['first', 'lock', 'with-first', 'x', 'y'])
    expect((await db(name).where({ id: 'lock' }).first()).note).toBe('by first')
  })

  test('a chunk that locks a row the committing one wrote waits for that commit and reads it', async () => {
    const { name, release } = await heldRow()
    const { shared } = recording({ overlapCommit: true })
    const { first } = await firstWaiting(shared, name)
    let readDone = false
    const reader = shared.run(async ({ writes, begin }) => {
      const [rows] = await begin([{ sql: `SELECT note FROM ${name} WHERE id = 'first' FOR UPDATE`, bindings: [] }])
      readDone = true
      writes.add(`UPDATE ${name} SET note = ? WHERE id = 'first'`, [`${rows[0] ? rows[0].note : 'nothing'}, then the reader`])
      return rows.map((r) => r.note)
    })
    await pause(100)
    expect(readDone).toBe(false)
    await release()
    expect(await reader).toEqual(['from first'])
    await first
    expect((await db(name).where({ id: 'first' }).first()).note).toBe('from first, then the reader')
  })

  test('after a busy one, the next does not wait for the consumers whose chunks are in the one committing', async () => {
    const { name, release } = await heldRow()
    // A window of a minute would outlast the test: if the next waited for c2, it would not finish.
    const { shared, groups } = recording({ overlapCommit: true, lingerMs: 60000, busyRecords: 2 })
    await Promise.all([shared.run(insertWork(name, 'busy1'), { source: 'c1' }), shared.run(insertWork(name, 'busy2'), { source: 'c2' })])
    // Another busy one of c1 and c2, whose COMMIT waits for the held row.
    const { first: second } = await firstWaiting(shared, name, ['c1', 'c2'])
    // c2's next chunk cannot come before that commit: the next one, opened by c1's, goes at once.
    const next = await shared.run(insertWork(name, 'next'), { source: 'c1' })
    expect(next.before).toBe(3)
    expect(groups.map((g) => g.members)).toEqual([2, 1])
    await release()
    await second
    expect(await rowsOf(name)).toEqual(['busy1', 'busy2', 'first', 'lock', 'next', 'with-first'])
  })

  test('without it, the next one waits for the commit (one place, as ever)', async () => {
    const { name, release } = await heldRow()
    const { shared } = recording()
    const { first } = await firstWaiting(shared, name)
    let nextDone = false
    const next = shared.run(insertWork(name, 'next')).then((v) => { nextDone = true; return v })
    await pause(150)
    expect(nextDone).toBe(false)
    await release()
    await first
    // It began after the first had committed: it sees the first's rows.
    expect((await next).before).toBe(3)
  })
})

test('a chunk whose work throws gets its error; the others are rolled back and committed alone', async () => {
  const name = await table()
  const { shared, groups } = recording()
  const boom = new Error('boom')
  const outcomes = await Promise.allSettled([
    shared.run(insertWork(name, 'a')),
    shared.run(insertWork(name, 'b', { fail: boom })),
    shared.run(insertWork(name, 'c'))
  ])
  expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
  expect(/** @type {PromiseRejectedResult} */ (outcomes[1]).reason).toBe(boom)
  expect(groups).toEqual([{ members: 3, records: 3, rolledBack: true }])
  expect(await rowsOf(name)).toEqual(['a', 'c'])
})

/**
 * A chunk's work that adds one to a counter row it reads locked (as a handler
 * changes a transfer it read `FOR UPDATE`), naming the row it writes unless `unnamed`.
 * @param {string} name @param {{ unnamed?: boolean }} [opts]
 */
const incrementWork = (name, { unnamed = false } = {}) => async ({ writes, begin }) => {
  const [[row]] = await begin([{ sql: `SELECT note FROM ${name} WHERE id = 'counter' FOR UPDATE`, bindings: [] }])
  const next = Number(row.note) + 1
  writes.add(`UPDATE ${name} SET note = ? WHERE id = 'counter'`, [String(next)], undefined, unnamed ? undefined : [`${name}:counter`])
  return next
}

test('two chunks that write the same row never commit together: each runs alone, where the row lock orders them', async () => {
  const name = await table()
  await db(name).insert({ id: 'counter', note: '0' })
  let conflicts = 0
  const { shared, groups } = recording({ onConflict: () => { conflicts++ } })
  const results = await Promise.all([shared.run(incrementWork(name)), shared.run(incrementWork(name))])
  expect(results.sort()).toEqual([1, 2])
  expect((await db(name).where({ id: 'counter' }).first()).note).toBe('2')
  expect(groups).toEqual([{ members: 2, records: 2, rolledBack: true }])
  expect(conflicts).toBe(1)
  // What the keys prevent: on one connection the lock does not hold the second
  // chunk back, both read 0, and one increment is lost.
  const lost = recording()
  await Promise.all([lost.shared.run(incrementWork(name, { unnamed: true })), lost.shared.run(incrementWork(name, { unnamed: true }))])
  expect((await db(name).where({ id: 'counter' }).first()).note).toBe('3')
  expect(lost.groups).toEqual([{ members: 2, records: 2, rolledBack: false }])
})

test('when the shared writes fail, each chunk runs alone, and only the one whose write fails gets the error', async () => {
  const name = await table()
  await db(name).insert({ id: 'taken', note: 'before' })
  const { shared, groups } = recording()
  const outcomes = await Promise.allSettled([
    shared.run(insertWork(name, 'x')),
    shared.run(insertWork(name, 'taken')),
    shared.run(insertWork(name, 'z'))
  ])
  expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
  expect(/** @type {any} */ (outcomes[1]).reason.code).toBe('ER_DUP_ENTRY')
  expect(groups).toEqual([{ members: 3, records: 3, rolledBack: true }])
  expect(await rowsOf(name)).toEqual(['taken', 'x', 'z'])
  expect((await db(name).where({ id: 'taken' }).first()).note).toBe('before')
})

test('when a shared read fails, each chunk runs alone, and only the one whose read fails gets the error', async () => {
  const name = await table()
  const { shared, groups } = recording()
  const outcomes = await Promise.allSettled([
    shared.run(insertWork(name, 'x')),
    shared.run(insertWork(name, 'bad', { countFrom: `${name}_missing` })),
    shared.run(insertWork(name, 'z'))
  ])
  expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
  // Its own error, as alone: not the shared read's wrapper.
  expect(/** @type {any} */ (outcomes[1]).reason.code).toBe('ER_NO_SUCH_TABLE')
  expect(groups).toEqual([{ members: 3, records: 3, rolledBack: true }])
  expect(await rowsOf(name)).toEqual(['x', 'z'])
})

test('a work that never began its transaction is an error, as it is alone', async () => {
  const shared = createSharedTransactions(db, { maxOpen: 1 })
  const name = await table()
  const outcomes = await Promise.allSettled([shared.run(insertWork(name, 'ok')), shared.run(async () => 'no begin')])
  expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected'])
  expect(String(/** @type {PromiseRejectedResult} */ (outcomes[1]).reason.message)).toMatch(/begin\(\) was never called/)
  expect(await rowsOf(name)).toEqual(['ok'])
})

describe('after a busy shared transaction (lingerMs)', () => {
  /**
   * Runs one busy shared transaction (one record more than chunks) of a chunk from each of
   * `chunks` consumers, c1, c2, …
   */
  async function busyFirst (shared, name, chunks = 2) {
    await Promise.all(Array.from({ length: chunks }, (_, i) => shared.run(insertWork(name, `busy${i + 1}`), { records: i ? 1 : 2, source: `c${i + 1}` })))
  }

  /** A promise and the callback that resolves it. */
  const signal = () => {
    const d = deferred()
    return { ...d, begun: d.release }
  }

  // A window of a minute would outlast the test: whatever ends these windows, it is not the time.
  const aMinute = 60000

  /**
   * After a busy transaction of consumers c1, c2 and c3, c1's chunk 'a' opens
   * the next one; resolves once a has read, with a's outcome.
   */
  async function openedByA (shared, name) {
    await busyFirst(shared, name, 3)
    const a = signal()
    const first = shared.run(insertWork(name, 'a', { begun: a.begun }), { source: 'c1' })
    await a.promise
    return { first }
  }

  test('the next takes chunks as they come, each reading at once, until every consumer of the busy one is in; they commit together', async () => {
    const name = await table()
    const { shared, groups, windows } = recording({ lingerMs: aMinute, busyRecords: 3 })
    await busyFirst(shared, name, 3)
    /** @type {string[]} */
    const events = []
    const a = signal()
    const first = shared.run(insertWork(name, 'a', { begun: a.begun }), { source: 'c1' }).then((r) => { events.push('a committed'); return r })
    await a.promise
    const b = signal()
    const second = shared.run(insertWork(name, 'b', { begun: () => { events.push('b read'); b.begun() } }), { source: 'c2' })
    await b.promise // b read inside a's open transaction, with c3 still to come
    events.push('c came')
    const results = await Promise.all([first, second, shared.run(insertWork(name, 'c'), { source: 'c3' })])
    expect(events).toEqual(['b read', 'c came', 'a committed'])
    expect(new Set(results.map((r) => r.connection)).size).toBe(1)
    expect(groups).toEqual([{ members: 3, records: 4, rolledBack: false }, { members: 3, records: 3, rolledBack: false }])
    expect(windows).toEqual([0, aMinute]) // the first took only the chunks it opened with
    expect(await rowsOf(name)).toEqual(['a', 'b', 'busy1', 'busy2', 'busy3', 'c'])
  })

  test('it waits for the consumers of the last few busy ones, whichever of them opens it', async () => {
    const name = await table()
    const { shared, groups } = recording({ lingerMs: aMinute, busyRecords: 2 })
    await shared.run(insertWork(name, 'turn'), { records: 2, source: 'c1' }) // alone, and busy
    const second = shared.run(insertWork(name, 'b'), { source: 'c2' })
    await pause(20)
    expect(groups).toHaveLength(1) // c2's transaction is open, waiting for c1
    const [rb, ra] = await Promise.all([second, shared.run(insertWork(name, 'a'), { source: 'c1' })])
    expect(ra.connection).toBe(rb.connection)
    expect(groups.map((g) => g.members)).toEqual([1, 2])
  })

  test('a chunk that joins late reads what other connections committed after the transaction opened', async () => {
    const name = await table()
    const { shared } = recording({ lingerMs: aMinute, busyRecords: 3 })
    const { first } = await openedByA(shared, name) // the shared transaction is open, and has read the table
    await db(name).insert({ id: 'outside', note: 'committed on another connection' })
    const [ra, rb] = await Promise.all([first, shared.run(insertWork(name, 'b'), { source: 'c2' }), shared.run(insertWork(name, 'c'), { source: 'c3' })])
    expect(rb.connection).toBe(ra.connection)
    expect([ra.before, rb.before]).toEqual([3, 4])
  })

  test('when they do not come, it waits lingerMs; a chunk that comes after that waits for the next one', async () => {
    const name = await table()
    const { shared, groups } = recording({ lingerMs: 50, busyRecords: 3 })
    await busyFirst(shared, name)
    const gate = deferred()
    const begun = deferred()
    const first = shared.run(insertWork(name, 'slow', { before: gate.promise, begun: begun.release }), { source: 'c1' })
    await begun.promise // the transaction is open, and its window running
    await pause(150) // the window is over; the slow chunk's work is not
    const late = shared.run(insertWork(name, 'late'), { source: 'c2' })
    expect(shared.waiting()).toBe(1)
    gate.release()
    await Promise.all([first, late])
    expect(groups.map((g) => g.members)).toEqual([2, 1, 1])
    expect(await rowsOf(name)).toEqual(['busy1', 'busy2', 'late', 'slow'])
  })

  test('a lone chunk still runs at once after one that was not busy', async () => {
    const name = await table()
    const { shared, groups } = recording({ lingerMs: aMinute, busyRecords: 4 })
    await busyFirst(shared, name) // three records: not busy
    await shared.run(insertWork(name, 'lone'), { source: 'c1' })
    expect(groups.map((g) => g.members)).toEqual([2, 1])
  })

  test('and after busy ones of a single consumer: no other is expected', async () => {
    const name = await table()
    const { shared, groups } = recording({ lingerMs: aMinute, busyRecords: 3 })
    await shared.run(insertWork(name, 'big'), { records: 50, source: 'c1' })
    await shared.run(insertWork(name, 'next'), { records: 50, source: 'c1' })
    expect(groups).toEqual([{ members: 1, records: 50, rolledBack: false }, { members: 1, records: 50, rolledBack: false }])
  })

  test('a chunk that fails ends the window at once: it keeps its error, and the other commits alone', async () => {
    const name = await table()
    const { shared, groups } = recording({ lingerMs: aMinute, busyRecords: 3 })
    const { first } = await openedByA(shared, name)
    const failing = shared.run(insertWork(name, 'b', { fail: new Error('boom') }), { source: 'c2' })
    await expect(failing).rejects.toThrow('boom')
    expect((await first).id).toBe('a')
    expect(groups).toEqual([{ members: 3, records: 4, rolledBack: false }, { members: 2, records: 2, rolledBack: true }])
    expect(await rowsOf(name)).toEqual(['a', 'busy1', 'busy2', 'busy3'])
  })

  test('a joining chunk whose read fails gets its own error; the one before it commits', async () => {
    const name = await table()
    const { shared } = recording({ lingerMs: aMinute, busyRecords: 3 })
    const { first } = await openedByA(shared, name)
    const failing = shared.run(insertWork(name, 'b', { countFrom: `${name}_missing` }), { source: 'c2' })
    await expect(failing).rejects.toMatchObject({ code: 'ER_NO_SUCH_TABLE' })
    expect((await first).id).toBe('a')
    expect(await rowsOf(name)).toEqual(['a', 'busy1', 'busy2', 'busy3'])
  })

  describe('with lingerShare, the window follows the transactions\' own time', () => {
    test('it is that share of the recent busy ones\' own time, and chunks that come within it join', async () => {
      const name = await table()
      const { shared, groups, openMs, windows } = recording({ lingerMs: aMinute, lingerShare: 0.5, busyRecords: 3 })
      // A busy one whose works take half a second: its own time.
      const slowWorks = pause(500)
      await Promise.all([1, 2, 3].map((i) => shared.run(insertWork(name, `busy${i}`, { before: slowWorks }), { records: i === 1 ? 2 : 1, source: `c${i}` })))
      const a = signal()
      const first = shared.run(insertWork(name, 'a', { begun: a.begun }), { source: 'c1' })
      await a.promise
      // c2 comes at once and joins; c3 never comes, and the window, not the minute, ends it.
      const [ra, rb] = await Promise.all([first, shared.run(insertWork(name, 'b'), { source: 'c2' })])
      expect(rb.connection).toBe(ra.connection)
      expect(groups.map((g) => g.members)).toEqual([3, 2])
      expect(windows[1]).toBeGreaterThanOrEqual(200)
      expect(windows[1]).toBeLessThanOrEqual(openMs[0] / 2)
    })

    test('after quick ones it is short; a chunk that comes after it waits for the next one', async () => {
      const name = await table()
      const { shared, groups, openMs, windows } = recording({ lingerMs: aMinute, lingerShare: 0.01, busyRecords: 3 })
      await busyFirst(shared, name)
      const gate = deferred()
      const begun = deferred()
      const first = shared.run(insertWork(name, 'slow', { before: gate.promise, begun: begun.release }), { source: 'c1' })
      await begun.promise
      await pause(150) // a hundredth of the busy one's time is over; the slow chunk's work is not
      const late = shared.run(insertWork(name, 'late'), { source: 'c2' })
      expect(shared.waiting()).toBe(1)
      gate.release()
      await Promise.all([first, late])
      expect(groups.map((g) => g.members)).toEqual([2, 1, 1])
      expect(windows[1]).toBeLessThanOrEqual(openMs[0] * 0.01)
    })
  })
})
