'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { parseSpan, loadSpans, listTraceFiles, indexSpans } = require('../../src/analyze/load')

const span = (over = {}) => ({ traceId: 'a'.repeat(32), spanId: '1'.repeat(16), parentSpanId: null, name: 'x', kind: 'INTERNAL', service: 's', start: 10, end: 12.5, durationMs: 2.5, attributes: {}, links: [], status: { code: 0 }, ...over })

const made = []
const tempDir = () => made[made.push(fs.mkdtempSync(path.join(os.tmpdir(), 'gaps-load-'))) - 1]
afterAll(() => { for (const d of made) fs.rmSync(d, { recursive: true, force: true }) })

test('a span line is parsed; defaults fill what an exporter left out', () => {
  expect(parseSpan(JSON.stringify(span()))).toEqual({ span: span({ status: { code: 0, message: undefined } }) })
  const { span: s } = /** @type {any} */ (parseSpan(JSON.stringify({ traceId: 't', spanId: 's', start: 1, end: 4 })))
  expect(s).toEqual({ traceId: 't', spanId: 's', parentSpanId: null, name: '', kind: 'INTERNAL', service: '', start: 1, end: 4, durationMs: 3, attributes: {}, links: [], status: { code: 0 } })
})

test('only the attributes the report reads are kept (SQL text would cost gigabytes)', () => {
  const attributes = { 'switchyard.stage': 'prepare', 'http.route': '/x', 'url.path': '/x', 'messaging.destination.name': 't', 'db.system': 'mysql', 'db.statement': 'INSERT …', 'thread.id': 3 }
  const { span: s } = /** @type {any} */ (parseSpan(JSON.stringify(span({ attributes, links: [{ traceId: 't', spanId: 's', attributes: { a: 1 } }] }))))
  expect(s.attributes).toEqual({ 'switchyard.stage': 'prepare', 'http.route': '/x', 'url.path': '/x', 'messaging.destination.name': 't', 'db.system': 'mysql' })
  expect(s.links).toEqual([{ traceId: 't', spanId: 's', attributes: {} }])
})

test('lines that are not spans give a reason', () => {
  expect(parseSpan('{"traceId":"t","spanId":')).toEqual({ reason: 'not JSON' })
  expect(parseSpan('[1,2]')).toEqual({ reason: 'not an object' })
  expect(parseSpan('null')).toEqual({ reason: 'not an object' })
  expect(parseSpan(JSON.stringify(span({ spanId: '' })))).toEqual({ reason: 'no traceId/spanId' })
  expect(parseSpan(JSON.stringify(span({ start: '10' })))).toEqual({ reason: 'no numeric start/end' })
  expect(parseSpan(JSON.stringify(span({ end: 9 })))).toEqual({ reason: 'end before start' })
})

test('directories give their .jsonl files, sorted; a file named twice is read once', async () => {
  const dir = tempDir()
  const good = JSON.stringify(span())
  fs.writeFileSync(path.join(dir, 'b-2.jsonl'), [good, '', '{torn', JSON.stringify(span({ spanId: '2'.repeat(16) }))].join('\r\n') + '\r\n')
  fs.writeFileSync(path.join(dir, 'a-1.jsonl'), `${JSON.stringify({ nope: true })}\n${good}\n`)
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'not a trace\n')
  expect(listTraceFiles([dir, path.join(dir, 'a-1.jsonl')])).toEqual([path.join(dir, 'a-1.jsonl'), path.join(dir, 'b-2.jsonl')])

  const loaded = await loadSpans([dir, path.join(dir, 'b-2.jsonl')])
  expect(loaded.files).toHaveLength(2)
  expect(loaded.lines).toBe(5)
  expect(loaded.spans.map((s) => s.spanId)).toEqual(['1'.repeat(16), '2'.repeat(16)])
  // The same span in two files (a copied file, say) counts once.
  expect(loaded.duplicates).toBe(1)
  expect(loaded.malformed).toEqual({
    count: 2,
    samples: [
      { file: path.join(dir, 'a-1.jsonl'), line: 1, reason: 'no traceId/spanId' },
      { file: path.join(dir, 'b-2.jsonl'), line: 3, reason: 'not JSON' }
    ]
  })
})

test('a path that does not exist is an error that names it', async () => {
  await expect(loadSpans([path.join(tempDir(), 'missing')])).rejects.toThrow(/cannot read .*missing: no such file or directory/)
})

test('parents are found within their trace; span ids may repeat across traces', () => {
  const root = span({ spanId: 'r'.repeat(16) })
  const child = span({ spanId: 'c'.repeat(16), parentSpanId: root.spanId })
  const elsewhere = span({ traceId: 'b'.repeat(32), spanId: 'c'.repeat(16), parentSpanId: root.spanId })
  const index = indexSpans([root, child, elsewhere])
  expect(index.parentOf(child)).toBe(root)
  expect(index.parentOf(elsewhere)).toBeUndefined()
  expect(index.parentOf(root)).toBeUndefined()
  expect(index.childrenOf(root)).toEqual([child])
})

test("a batch span's message links come back as the messages' stage spans, once however often read", async () => {
  const batch = span({
    spanId: 'b'.repeat(16),
    name: 'position batch',
    start: 20,
    end: 23,
    durationMs: 3,
    attributes: { 'switchyard.stage': 'position', 'messaging.system': 'kafka', 'messaging.destination.name': 'sy.position', 'messaging.kafka.destination.partition': 2, 'switchyard.batch.size': 2 },
    links: [
      { traceId: 'c'.repeat(32), spanId: '3'.repeat(16), attributes: { 'messaging.kafka.message.offset': 7, 'switchyard.queue_gap_ms': 4, 'switchyard.transfer_id': 't1', 'switchyard.action': 'reserve' } },
      { traceId: 'd'.repeat(32), spanId: '4'.repeat(16), attributes: { 'messaging.kafka.message.offset': 8, 'switchyard.queue_gap_ms': 3, 'switchyard.transfer_id': 't2', 'switchyard.action': 'commit' } }
    ]
  })
  const other = span({ spanId: '5'.repeat(16), links: [{ traceId: 'c'.repeat(32), spanId: '3'.repeat(16), attributes: { why: 'a link of another kind' } }] })
  const dir = tempDir()
  const lines = [batch, other].map((s) => JSON.stringify(s)).join('\n') + '\n'
  fs.writeFileSync(path.join(dir, 'position-1.jsonl'), lines)
  fs.writeFileSync(path.join(dir, 'position-1-copy.jsonl'), lines)

  const loaded = await loadSpans([dir])
  expect(loaded.duplicates).toBe(2)
  expect(loaded.spans.map((s) => [s.traceId[0], s.spanId, s.parentSpanId])).toEqual([
    ['a', 'b'.repeat(16), null], ['c', `${'b'.repeat(16)}.0`, '3'.repeat(16)], ['d', `${'b'.repeat(16)}.1`, '4'.repeat(16)], ['a', '5'.repeat(16), null]
  ])
  const [read, first, second, alone] = loaded.spans
  expect(first).toEqual({
    traceId: 'c'.repeat(32),
    spanId: `${'b'.repeat(16)}.0`,
    parentSpanId: '3'.repeat(16),
    name: 'position process',
    kind: 'CONSUMER',
    service: 's',
    start: 20,
    end: 23,
    durationMs: 3,
    attributes: {
      'switchyard.stage': 'position',
      'messaging.system': 'kafka',
      'messaging.destination.name': 'sy.position',
      'messaging.kafka.destination.partition': 2,
      'switchyard.batch.size': 2,
      'switchyard.batch.span_id': 'b'.repeat(16),
      'messaging.kafka.message.offset': 7,
      'switchyard.queue_gap_ms': 4,
      'switchyard.transfer_id': 't1',
      'switchyard.action': 'reserve'
    },
    links: [],
    status: { code: 0, message: undefined }
  })
  expect(second.attributes['switchyard.transfer_id']).toBe('t2')
  // The batch now links to its stage spans, as the SQL attribution expects.
  expect(read.links).toEqual([{ traceId: 'c'.repeat(32), spanId: first.spanId }, { traceId: 'd'.repeat(32), spanId: second.spanId }])
  // A link without a message offset is left as it is.
  expect(alone.links).toEqual([{ traceId: 'c'.repeat(32), spanId: '3'.repeat(16), attributes: {} }])
})

/**
 * The stage span a batch span with one message and this wait comes back as.
 * @param {string} stage @param {number} end @param {number} waitMs
 */
async function stageAfterWait (stage, end, waitMs) {
  const batch = span({
    spanId: 'e'.repeat(16),
    name: `${stage} batch`,
    start: 100,
    end,
    durationMs: end - 100,
    attributes: { 'switchyard.stage': stage, 'switchyard.batch.size': 1, 'switchyard.wait_ms': waitMs },
    links: [{ traceId: 'c'.repeat(32), spanId: '3'.repeat(16), attributes: { 'messaging.kafka.message.offset': 9, 'switchyard.transfer_id': 't1' } }]
  })
  const dir = tempDir()
  fs.writeFileSync(path.join(dir, `${stage}-1.jsonl`), JSON.stringify(batch) + '\n')
  const [, stageSpan] = (await loadSpans([dir])).spans
  return stageSpan
}

test("a chunk's wait in the process for its transaction is not its stage's work: its stage spans start when the work began", async () => {
  const stage = await stageAfterWait('fulfil', 110, 6)
  expect([stage.start, stage.end, stage.durationMs, stage.attributes['switchyard.wait_ms']]).toEqual([106, 110, 4, 6])
})

test("a stage span's start after its wait is rounded down to the millisecond, as span starts are, so a callback sent in that millisecond does not start before it", async () => {
  const stage = await stageAfterWait('notification', 104, 1.6)
  expect([stage.start, stage.end, stage.durationMs]).toEqual([101, 104, 3])
})
