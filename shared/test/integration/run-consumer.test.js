'use strict'

// The consumer runner against the real broker and database: the order
// DB commit → produce → offset commit, redelivery, dead letters, and a process
// killed between the DB commit and the produce — with transactions of its
// own, with its reads before the transaction (readsFirst), and in
// transactions shared with other consumers, lingering ones included.

const path = require('node:path')
const os = require('node:os')
const fs = require('node:fs')
const { spawn } = require('node:child_process')
const { testConfig, unique } = require('../../../test/support/config')
const { createTestKafka } = require('../../../test/support/kafka')
const { waitUntil } = require('../../../test/support/wait')
const { childEnv } = require('../../src/config')
const { createLogger } = require('../../src/logger')
const { createDb, createSharedTransactions } = require('../../src/db')
const { runConsumer, runnerSettings, createProducer, deadLetterTopic } = require('../../src/kafka')
const { createEchoHandler, createEffectsTable } = require('../fixtures/echo-handler')
const { settledWithin } = require('../../src/settled-within')

const config = testConfig()
const logger = createLogger(config)
const settings = { ...runnerSettings(config), maxAttempts: 3, backoffMs: 10, maxWaitMs: 50, partitionsConcurrently: 1 }

let db
let tk
let producer
/** @type {ReturnType<typeof createSharedTransactions>} */
let shared
const stops = []

/**
 * How a runner uses the database. The notification handler runs reads first
 * in shared transactions, where a transaction rolled back runs its work again.
 */
const MODES = ['own transactions', 'reads first', 'shared transactions', 'reads first, shared']

beforeAll(async () => {
  db = createDb(config)
  shared = createSharedTransactions(db, { maxOpen: 1 })
  tk = createTestKafka(config)
  await tk.connect()
  producer = createProducer({ kafka: tk.kafka })
  await producer.connect()
})

afterEach(async () => {
  while (stops.length) await stops.pop()()
})

afterAll(async () => {
  await producer.disconnect()
  await tk.close()
  await db.destroy()
})

/** A fresh input topic, output topic, effects table and group for one test. */
async function scenario (partitions = 1) {
  const id = unique()
  const s = { inTopic: `test.${id}.in`, outTopic: `test.${id}.out`, table: `effects_${id}`, groupId: `group-${id}` }
  await tk.createTopics([s.inTopic, s.outTopic, deadLetterTopic(s.inTopic)], partitions)
  await createEffectsTable(db, s.table)
  return s
}

async function start (s, handlerOpts = {}, settingsOverrides = {}, mode = MODES[0], transactions = shared, withProducer = producer, onCommitted = undefined) {
  const readsFirst = mode.startsWith('reads first')
  const runner = await runConsumer({
    kafka: tk.kafka,
    db,
    producer: withProducer,
    logger,
    groupId: s.groupId,
    topics: [s.inTopic],
    handleBatch: createEchoHandler({ table: s.table, outTopic: s.outTopic, viaWrites: readsFirst, ...handlerOpts }),
    readsFirst,
    transact: mode.includes('shared') ? transactions.run : undefined,
    onCommitted,
    settings: { ...settings, ...settingsOverrides }
  })
  stops.push(() => runner.stop())
  return runner
}

const ids = (n, prefix) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`)
const effects = async (s) => Object.fromEntries((await db(s.table).select('id', 'applied')).map((r) => [r.id, r.applied]))
const committedTotal = async (s) => (await tk.committed(s.groupId, s.inTopic)).reduce((a, b) => a + Math.max(0, b), 0)

test.each(MODES)('applies a batch once, emits its messages, then commits the offsets (%s)', async (mode) => {
  const s = await scenario(3)
  const out = await tk.collect(s.outTopic)
  const sent = ids(30, 'm')
  await tk.send(sent.map((id) => ({ topic: s.inTopic, key: id, value: { id } })))
  await start(s, {}, {}, mode)

  await out.waitForCount(30)
  expect(out.messages.map((m) => m.value.id).sort()).toEqual([...sent].sort())
  expect(await effects(s)).toEqual(Object.fromEntries(sent.map((id) => [id, 1])))
  await waitUntil(async () => (await tk.committed(s.groupId, s.inTopic)).reduce((a, b) => a + b, 0) === 30, { what: 'offsets committed' })
})

test('offsets are committed by interval, not after every fetch; a stop commits what is finished, so a restart redelivers nothing', async () => {
  const s = await scenario(1)
  const out = await tk.collect(s.outTopic)
  const longInterval = { offsetCommitIntervalMs: 60000 }
  const runner = await start(s, {}, longInterval)
  const requests = []
  runner.consumer.on(runner.consumer.events.COMMIT_OFFSETS, (e) => requests.push(e))
  // Five fetches, one after another: each round is applied and emitted
  // before the next is sent. Committing after every batch (kafkajs's
  // autoCommit) would have committed the first four before their next fetch.
  for (let round = 0; round < 5; round++) {
    await tk.send(ids(6, `r${round}`).map((id) => ({ topic: s.inTopic, key: id, value: { id } })))
    await out.waitForCount(6 * (round + 1))
  }
  expect(requests).toHaveLength(0)
  expect(await tk.committed(s.groupId, s.inTopic)).toEqual([-1])

  await runner.stop()
  expect(requests).toHaveLength(1)
  expect(await tk.committed(s.groupId, s.inTopic)).toEqual([30])

  // The next consumer of the group starts after the last finished record.
  await start(s, {}, longInterval)
  await tk.send([{ topic: s.inTopic, key: 'late', value: { id: 'late' } }])
  await out.waitForCount(31)
  const outIds = out.messages.map((m) => m.value.id)
  expect(new Set(outIds).size).toBe(31)
  expect(await effects(s)).toEqual(Object.fromEntries(outIds.map((id) => [id, 1])))
})

test('a stop while the broker refuses every produce ends at once; the next owner emits what was committed', async () => {
  const s = await scenario(1)
  const out = await tk.collect(s.outTopic)
  let produceAttempts = 0
  const brokerAway = { sendSoon: async () => { produceAttempts++; throw Object.assign(new Error('broker away'), { retriable: true }) } }
  await tk.send([{ topic: s.inTopic, key: 'k', value: { id: 'committed-then-stopped' } }])
  const runner = await start(s, {}, {}, MODES[0], shared, brokerAway)
  // The chunk's transaction committed; its produce is being retried.
  await waitUntil(async () => produceAttempts >= 2, { what: 'produce retried' })
  expect(await effects(s)).toEqual({ 'committed-then-stopped': 1 })
  expect(await settledWithin(runner.stop(), 20000)).toBe(true)
  expect(await committedTotal(s)).toBe(0)
  // Whoever consumes the partition next replays the stored message, without applying it again.
  await start(s)
  await out.waitForCount(1)
  expect(out.messages.map((m) => m.value.id)).toEqual(['committed-then-stopped'])
  expect(await effects(s)).toEqual({ 'committed-then-stopped': 1 })
})

test('a rebalance commits what the consumer has finished before the group settles', async () => {
  const s = await scenario(2)
  const out = await tk.collect(s.outTopic)
  const longInterval = { offsetCommitIntervalMs: 60000 }
  await start(s, {}, longInterval)
  const sent = ids(20, 'b')
  await tk.send(sent.map((id) => ({ topic: s.inTopic, key: id, value: { id } })))
  await out.waitForCount(20)
  expect(await committedTotal(s)).toBe(0)

  // A second member joins: the first learns of the rebalance and commits.
  await start(s, {}, longInterval)
  await waitUntil(async () => (await committedTotal(s)) === 20, { what: 'the finished offsets committed at the rebalance' })
  expect(await effects(s)).toEqual(Object.fromEntries(sent.map((id) => [id, 1])))
})

test('onCommitted hears what each transaction emits once it has committed; ownsAll says whether the runner is its group\'s only member', async () => {
  const s = await scenario(2)
  const out = await tk.collect(s.outTopic)
  /** @type {{ ids: string[], applied: number }[]} */
  const heard = []
  const onCommitted = (messages) => {
    const sent = messages.map((m) => JSON.parse(m.value).id)
    // Committed: the effects are there to read (counted once they are).
    heard.push({ ids: sent, applied: -1 })
    const entry = heard[heard.length - 1]
    db(s.table).whereIn('id', sent).count({ n: '*' }).then(([row]) => { entry.applied = Number(row.n) })
  }
  const first = await start(s, {}, {}, MODES[0], shared, producer, onCommitted)
  await waitUntil(() => first.ownsAll(), { what: 'the only member owning every partition' })
  const sent = ids(12, 'h')
  await tk.send(sent.map((id) => ({ topic: s.inTopic, key: id, value: { id } })))
  await out.waitForCount(12)
  await waitUntil(() => heard.every((h) => h.applied >= 0), { what: 'the effects of what was heard read back' })
  expect(heard.flatMap((h) => h.ids).sort()).toEqual([...sent].sort())
  expect(heard.every((h) => h.applied === h.ids.length)).toBe(true)

  // A second member joins: neither owns every partition now.
  const second = await start(s)
  await waitUntil(() => !first.ownsAll() && !second.ownsAll(), { what: 'both members knowing they share the group' })
  // Once it leaves, the first owns them all again.
  await second.stop()
  await waitUntil(() => first.ownsAll(), { timeoutMs: 60000, what: 'the first member alone again' })
})

test('records are applied in transactions of at most maxBatchSize', async () => {
  const s = await scenario()
  const out = await tk.collect(s.outTopic)
  const sent = ids(10, 'b')
  await tk.send(sent.map((id) => ({ topic: s.inTopic, key: 'one-partition', value: { id } })))
  const batchSizes = []
  await start(s, { batchSizes }, { maxBatchSize: 4 })
  await out.waitForCount(10)
  expect(Math.max(...batchSizes)).toBeLessThanOrEqual(4)
  expect(batchSizes.reduce((a, b) => a + b, 0)).toBe(10)
  expect(await effects(s)).toEqual(Object.fromEntries(sent.map((id) => [id, 1])))
})

test('records waiting on several partitions share one transaction, each partition in order', async () => {
  const s = await scenario(3)
  const out = await tk.collect(s.outTopic)
  const sent = ids(60, 'g')
  await tk.send(sent.map((id) => ({ topic: s.inTopic, key: id, value: { id } })))
  const batchSizes = []
  const batchPartitions = []
  const seen = []
  await start(s, { batchSizes, batchPartitions, seen })
  await out.waitForCount(60)
  expect(Math.max(...batchPartitions)).toBeGreaterThan(1)
  expect(batchSizes.reduce((a, b) => a + b, 0)).toBe(60)
  expect(await effects(s)).toEqual(Object.fromEntries(sent.map((id) => [id, 1])))
  // Each partition's records reached the handler once each, in offset order.
  const byPartition = new Map()
  for (const { partition, offset } of seen) byPartition.set(partition, [...(byPartition.get(partition) || []), Number(offset)])
  expect(byPartition.size).toBe(3)
  for (const offsets of byPartition.values()) expect(offsets).toEqual(offsets.map((_, i) => i))
  await waitUntil(async () => (await tk.committed(s.groupId, s.inTopic)).reduce((a, b) => a + b, 0) === 60, { what: 'offsets committed' })
})

test.each(MODES)('a batch whose DB transaction fails is rolled back, redelivered and applied once (%s)', async (mode) => {
  const s = await scenario()
  const out = await tk.collect(s.outTopic)
  const sent = ids(10, 'r')
  await tk.send(sent.map((id) => ({ topic: s.inTopic, key: 'one-partition', value: { id } })))
  await start(s, { failFirstAttempts: 2 }, {}, mode)

  await out.waitForCount(10)
  expect(await effects(s)).toEqual(Object.fromEntries(sent.map((id) => [id, 1])))
  await waitUntil(async () => (await tk.committed(s.groupId, s.inTopic))[0] === 10, { what: 'offset 10 committed' })
  expect(out.messages).toHaveLength(10)
})

test.each(MODES)('a message whose handler keeps throwing goes to the dead-letter topic and the partition moves on (%s)', async (mode) => {
  const s = await scenario()
  const out = await tk.collect(s.outTopic)
  const dlq = await tk.collect(deadLetterTopic(s.inTopic))
  await tk.send([
    { topic: s.inTopic, key: 'k', value: { id: 'before' } },
    { topic: s.inTopic, key: 'k', value: { id: 'poison', poison: true } },
    { topic: s.inTopic, key: 'k', value: { id: 'after' } }
  ])
  await tk.sendRaw([{ topic: s.inTopic, key: 'k', value: 'not json {' }])
  await tk.send([{ topic: s.inTopic, key: 'k', value: { id: 'last' } }])
  await start(s, {}, {}, mode)

  await dlq.waitForCount(2)
  await out.waitForCount(3)
  const [poison, garbage] = dlq.messages
  expect(poison.value).toMatchObject({ topic: s.inTopic, partition: 0, offset: '1', value: { id: 'poison', poison: true }, error: { message: 'cannot handle poison', attempts: 3 } })
  expect(garbage.value).toMatchObject({ offset: '3', value: 'not json {' })
  expect(garbage.value.error.message).toMatch(/not JSON/)
  expect(out.messages.map((m) => m.value.id)).toEqual(['before', 'after', 'last'])
  expect(await effects(s)).toEqual({ before: 1, after: 1, last: 1 })
  await waitUntil(async () => (await tk.committed(s.groupId, s.inTopic))[0] === 5, { what: 'offset 5 committed' })
})

test('consumers of one process that are ready while a shared transaction is open commit together in the next', async () => {
  const groups = []
  const transactions = createSharedTransactions(db, { maxOpen: 1, onGroup: ({ ms, windowMs, ...g }) => groups.push(g) })
  let release = () => {}
  const gate = new Promise((resolve) => { release = () => resolve(undefined) })
  const [slow, a, b] = [await scenario(), await scenario(), await scenario()]
  const outs = [await tk.collect(slow.outTopic), await tk.collect(a.outTopic), await tk.collect(b.outTopic)]
  // The slow consumer's first transaction stays open until the gate opens...
  await tk.send([{ topic: slow.inTopic, key: 'k', value: { id: 'slow' } }])
  // Gated, it sends no heartbeats: a long session keeps it in its group however long the others take to start.
  await start(slow, { gate }, { sessionTimeoutMs: 30000 }, 'shared transactions', transactions)
  await waitUntil(async () => transactions.open() === 1, { what: 'the slow transaction open' })
  // ...while two other consumers' records arrive.
  const fromA = ['a1', 'a2', 'a3'].map((id) => ({ topic: a.inTopic, key: 'k', value: { id } }))
  await tk.send([...fromA, { topic: b.inTopic, key: 'k', value: { id: 'b' } }])
  await start(a, {}, {}, 'shared transactions', transactions)
  await start(b, {}, {}, 'shared transactions', transactions)
  await waitUntil(async () => transactions.waiting() === 2, { what: 'both waiting' })
  release()
  await Promise.all([outs[0].waitForCount(1), outs[1].waitForCount(3), outs[2].waitForCount(1)])
  // Each chunk tells the shared transaction how many records it applies.
  expect(groups).toEqual([{ members: 1, records: 1, rolledBack: false }, { members: 2, records: 4, rolledBack: false }])
  expect([await effects(slow), await effects(a), await effects(b)]).toEqual([{ slow: 1 }, { a1: 1, a2: 1, a3: 1 }, { b: 1 }])
})

test('a shared transaction rolled back by another chunk: a chunk that read first runs again alone and commits every write', async () => {
  const groups = []
  const transactions = createSharedTransactions(db, { maxOpen: 1, onGroup: ({ ms, windowMs, ...g }) => groups.push(g) })
  let release = () => {}
  const gate = new Promise((resolve) => { release = () => resolve(undefined) })
  const [slow, a, b] = [await scenario(), await scenario(), await scenario()]
  const outs = [await tk.collect(slow.outTopic), await tk.collect(a.outTopic), await tk.collect(b.outTopic)]
  await tk.send([{ topic: slow.inTopic, key: 'k', value: { id: 'slow' } }])
  await start(slow, { gate }, { sessionTimeoutMs: 30000 }, 'shared transactions', transactions)
  await waitUntil(async () => transactions.open() === 1, { what: 'the slow transaction open' })
  // a reads first, as the notification handler does; b's first attempt fails,
  // which rolls back the transaction the two share.
  await tk.send([...['a1', 'a2', 'a3'].map((id) => ({ topic: a.inTopic, key: 'k', value: { id } })), { topic: b.inTopic, key: 'k', value: { id: 'b' } }])
  await start(a, {}, {}, 'reads first, shared', transactions)
  await start(b, { failFirstAttempts: 1 }, {}, 'shared transactions', transactions)
  await waitUntil(async () => transactions.waiting() === 2, { what: 'both waiting' })
  release()
  await Promise.all([outs[0].waitForCount(1), outs[1].waitForCount(3), outs[2].waitForCount(1)])
  expect(groups[1]).toEqual({ members: 2, records: 4, rolledBack: true })
  expect([await effects(a), await effects(b)]).toEqual([{ a1: 1, a2: 1, a3: 1 }, { b: 1 }])
  // Its progress is recorded too: a redelivery would find the records applied.
  const [progress] = await db('consumer_progress').where({ consumer_group: a.groupId })
  expect(Number(progress.last_offset)).toBe(2)
})

test('consumers of one process in lingering shared transactions: chunks join as they come, and each record is applied once, in order', async () => {
  const groups = []
  // Every transaction is busy (one record), so each next one takes the chunks that come for up to 300 ms.
  const transactions = createSharedTransactions(db, { maxOpen: 1, lingerMs: 300, busyRecords: 1, onGroup: ({ ms, windowMs, ...g }) => groups.push(g) })
  const [a, b] = [await scenario(), await scenario()]
  const outs = [await tk.collect(a.outTopic), await tk.collect(b.outTopic)]
  const sent = [ids(40, 'la'), ids(40, 'lb')]
  const seen = [[], []]
  await start(a, { seen: seen[0] }, { maxBatchSize: 5 }, 'shared transactions', transactions)
  await start(b, { seen: seen[1] }, { maxBatchSize: 5 }, 'shared transactions', transactions)
  // The records go out once both consumers hold their partitions (the runner
  // starts when its consumer has joined its group), so both are fetching when
  // they arrive; sent before, the first could be done before the second had
  // joined, and there would be nothing to share.
  await tk.send([...sent[0].map((id) => ({ topic: a.inTopic, key: 'k', value: { id } })), ...sent[1].map((id) => ({ topic: b.inTopic, key: 'k', value: { id } }))])
  await Promise.all(outs.map((o) => o.waitForCount(40)))
  // Both consumers' chunks went into the same transactions.
  expect(groups.some((g) => g.members === 2)).toBe(true)
  expect(groups.every((g) => !g.rolledBack)).toBe(true)
  expect([await effects(a), await effects(b)]).toEqual(sent.map((some) => Object.fromEntries(some.map((id) => [id, 1]))))
  expect(outs.map((o) => o.messages.map((m) => m.value.id))).toEqual(sent)
  for (const s of seen) expect(s.map((r) => Number(r.offset))).toEqual(s.map((_, i) => i))
  for (const s of [a, b]) await waitUntil(async () => (await tk.committed(s.groupId, s.inTopic))[0] === 40, { what: 'offsets committed' })
})

// Child processes, and the broker's wait for a killed member's session to
// lapse before its replacement gets the partitions (6 s each time).
const CRASH_TEST_MS = 120000

/** Runs the crash-test consumer as a child process. */
function crashChild (s, crashFile, crashes = 1, mode = 'own') {
  const child = path.join(__dirname, '..', 'fixtures', 'runner-child.js')
  // The minimum session timeout the broker allows, so the killed member's
  // partitions move to its replacement quickly.
  const env = childEnv({ NODE_ENV: 'test', DB_NAME: config.DB_NAME, LOG_LEVEL: 'warn', KAFKA_SESSION_TIMEOUT_MS: '6000' })
  const proc = spawn(process.execPath, [child, s.inTopic, s.outTopic, s.table, s.groupId, crashFile, String(crashes), mode], { env, stdio: ['ignore', 'inherit', 'inherit'] })
  const exited = new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })))
  return { proc, exited }
}

/**
 * Waits until every id sent is on the output topic, then returns the ids it
 * holds, sorted: each once, or, when a child process joined its group again
 * (a stalled broker or machine outlasted its session, runner-child.js), each
 * distinct one. Such a rejoin redelivers from the last committed offsets,
 * and a redelivery re-emits what it emitted before (DESIGN rule 1): every
 * message at least once, every effect once. A CI run saw the broker stall
 * for five seconds in the middle of a crash test.
 */
async function emitted (out, sent, crashFile) {
  const distinct = () => new Set(out.messages.map((m) => m.value.id))
  await waitUntil(() => distinct().size === sent.length, { what: `all ${sent.length} ids on the output topic` })
  const rejoined = fs.existsSync(`${crashFile}.rejoined`)
  fs.rmSync(`${crashFile}.rejoined`, { force: true })
  return rejoined ? [...distinct()].sort() : out.messages.map((m) => m.value.id).sort()
}

test.each([
  [1, 'one partition', 'own'],
  [3, 'three partitions sharing the transaction', 'own'],
  [3, 'three partitions, reads before the transaction', 'reads-first'],
  [3, 'three partitions, in shared transactions', 'shared']
])('a process killed between the DB commit and the produce re-emits after restart without applying twice (%i: %s)', async (partitions, _what, mode) => {
  const s = await scenario(partitions)
  const out = await tk.collect(s.outTopic)
  const sent = ids(50, 'c')
  await tk.send(sent.map((id) => ({ topic: s.inTopic, key: partitions === 1 ? 'one-partition' : id, value: { id } })))
  const crashFile = path.join(os.tmpdir(), `${s.groupId}.crashed`)

  const first = crashChild(s, crashFile, 1, mode)
  expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' })
  const afterCrash = await effects(s)
  // The first transaction's effects were committed, but nothing was produced.
  expect(Object.keys(afterCrash).length).toBeGreaterThan(0)
  expect(Object.values(afterCrash).every((n) => n === 1)).toBe(true)
  expect(out.messages).toHaveLength(0)
  expect(await tk.committed(s.groupId, s.inTopic)).toEqual(Array(partitions).fill(-1))

  const second = crashChild(s, crashFile, 1, mode)
  stops.push(async () => { second.proc.kill('SIGTERM'); await second.exited })
  const outIds = await emitted(out, sent, crashFile)
  await waitUntil(async () => (await committedTotal(s)) === 50, { what: 'offsets of all 50 committed' })
  expect(await effects(s)).toEqual(Object.fromEntries(sent.map((id) => [id, 1])))
  // Every message exactly once (unless the group rebalanced since: see emitted).
  expect(outIds).toEqual([...sent].sort())
  fs.rmSync(crashFile, { force: true })
}, CRASH_TEST_MS)

test('killed again after re-applying with new records, nothing is lost or applied twice', async () => {
  const s = await scenario(3)
  const out = await tk.collect(s.outTopic)
  const sent = ids(50, 'd')
  const send = (some) => tk.send(some.map((id) => ({ topic: s.inTopic, key: id, value: { id } })))
  const crashFile = path.join(os.tmpdir(), `${s.groupId}.crashed`)
  await send(sent.slice(0, 25))
  expect(await crashChild(s, crashFile, 2).exited).toEqual({ code: null, signal: 'SIGKILL' })
  // The restarted consumer finds the unsent messages of the first crash and
  // new records; it commits them together and is killed before sending.
  await send(sent.slice(25))
  expect(await crashChild(s, crashFile, 2).exited).toEqual({ code: null, signal: 'SIGKILL' })
  expect(out.messages).toHaveLength(0)

  const third = crashChild(s, crashFile, 2)
  stops.push(async () => { third.proc.kill('SIGTERM'); await third.exited })
  const outIds = await emitted(out, sent, crashFile)
  await waitUntil(async () => (await committedTotal(s)) === 50, { what: 'offsets of all 50 committed' })
  expect(await effects(s)).toEqual(Object.fromEntries(sent.map((id) => [id, 1])))
  expect(outIds).toEqual([...sent].sort())
  fs.rmSync(crashFile, { force: true })
}, CRASH_TEST_MS)
