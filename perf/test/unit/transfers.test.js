'use strict'

const { makeTrace, readBack, transferIdFor } = require('../fixtures/make-trace')
const { toTransfers } = require('../../src/analyze/transfers')

const analyze = (spans) => toTransfers(spans)
const byId = (r, i) => r.transfers.find((t) => t.id === transferIdFor(i))
const col = (t, f) => t.events.map(f)

test('a transfer is its requests, stage spans and callbacks, in start order', () => {
  const r = analyze(readBack(makeTrace().spans))
  expect(r.transfers.map((t) => t.id)).toEqual([0, 1, 2, 3, 4, 5, 6].map(transferIdFor))
  expect(r.unassigned).toBe(0)
  const t = byId(r, 0)
  expect(col(t, (e) => e.label)).toEqual([
    'API POST /transfers', 'prepare', 'position reserve', 'notification', 'callback POST', 'API PUT /transfers/{id}',
    'fulfil', 'position commit', 'notification', 'notification', 'callback PUT', 'callback PUT'
  ])
  expect(col(t, (e) => e.kind)).toEqual(['api', 'stage', 'stage', 'stage', 'callback', 'api', 'stage', 'stage', 'stage', 'stage', 'callback', 'callback'])
  expect(col(t, (e) => e.span.service)).toContain('switchyard-notification')
  expect(col(t, (e) => e.offsetMs)).toEqual([0, 2.5, 6, 9.5, 11.5, 18.5, 20.5, 23, 26, 26.5, 28, 28.5])
  expect(col(t, (e) => e.durationMs)).toEqual([1.5, 2, 2.5, 1.5, 2, 1, 1.5, 2, 1.5, 1.25, 2, 1])
})

test('in the same millisecond, a callback goes before the request it set off, however they end', () => {
  // Span starts have millisecond resolution, and the participant answers the
  // callback before its PUT reaches the API, so the PUT can start in the
  // callback's millisecond and end after it.
  const spans = readBack(makeTrace({ transfers: 1, delays: {} }).spans)
  const callback = spans.find((s) => s.kind === 'CLIENT' && s.name.startsWith('callback POST'))
  const put = spans.find((s) => s.kind === 'SERVER' && s.parentSpanId === callback.spanId)
  Object.assign(callback, { end: callback.start + 0.25, durationMs: 0.25 })
  Object.assign(put, { start: callback.start, end: callback.start + 1, durationMs: 1 })
  const labels = analyze(spans).transfers[0].events.map((e) => e.label)
  expect(labels.slice(labels.indexOf('callback POST'), labels.indexOf('callback POST') + 2)).toEqual(['callback POST', 'API PUT /transfers/{id}'])
})

test('gaps count from the latest end among earlier events, and say what they follow', () => {
  const t = byId(analyze(readBack(makeTrace().spans)), 0)
  expect(col(t, (e) => e.gapBeforeMs)).toEqual([0, 1, 1.5, 1, 0.5, 5, 1, 1, 1, 0, 0.25, 0])
  expect(col(t, (e) => e.gapFrom)).toEqual([null, 'API POST /transfers', 'prepare', 'position reserve', 'notification', 'callback POST',
    'API PUT /transfers/{id}', 'fulfil', 'position commit', 'notification', 'notification', 'callback PUT'])
  expect(col(t, (e) => e.queueGapMs)).toEqual([null, 1.5, 2, 1.5, null, null, 1.5, 1.5, 1.75, 2, null, null])
  // Work is the union of the events (overlaps once); the rest of the total is the gaps.
  expect(t.workMs).toBe(17.75)
  expect(t.totalMs).toBe(30)
  expect(t.workMs + t.events.reduce((s, e) => s + e.gapBeforeMs, 0)).toBe(t.totalMs)
})

test('delays show up as gaps where they happened', () => {
  const r = analyze(readBack(makeTrace().spans))
  const slowCommit = byId(r, 3)
  const commit = slowCommit.events.find((e) => e.label === 'position commit')
  expect([commit.gapBeforeMs, commit.queueGapMs, commit.gapFrom, commit.offsetMs]).toEqual([41, 41.5, 'fulfil', 63])
  expect([slowCommit.workMs, slowCommit.totalMs]).toEqual([17.75, 70])
  const slowPayee = byId(r, 6)
  const put = slowPayee.events.find((e) => e.label === 'API PUT /transfers/{id}')
  expect([put.gapBeforeMs, put.gapFrom, put.queueGapMs]).toEqual([30, 'callback POST', null])
  expect(slowPayee.totalMs).toBe(55)
})

test('SQL of a batch is shared by its messages: statements and time ÷ batch size', () => {
  const r = analyze(readBack(makeTrace().spans))
  const t = byId(r, 0)
  // Batches of 3: prepare 3 statements, position 4, notification 1, fulfil 2; 0.25 ms each.
  expect(col(t, (e) => e.batchSize)).toEqual([null, 3, 3, 3, null, null, 3, 3, 3, 3, null, null])
  const expected = [0, 1, 4 / 3, 1 / 3, 0, 0, 2 / 3, 4 / 3, 1 / 3, 1 / 3, 0, 0]
  col(t, (e) => e.sqlStatements).forEach((v, i) => expect(v).toBeCloseTo(expected[i], 12))
  col(t, (e) => e.sqlMs).forEach((v, i) => expect(v).toBeCloseTo(expected[i] * 0.25, 12))
  expect(t.sqlStatements).toBeCloseTo(16 / 3, 12)
  expect(t.sqlMs).toBeCloseTo(4 / 3, 12)
  // Transfer 7 was alone in its batches: it pays for all of their SQL.
  expect(byId(r, 6).sqlStatements).toBe(16)
  expect(byId(r, 6).sqlMs).toBe(4)
  // The timeout sweep's statement belongs to no transfer.
  expect(r.sql).toEqual({ statements: 49, inBatches: 48, inEvents: 0, elsewhere: 1 })
})

test('chunks applied in one transaction share its SQL: statements ÷ the records of them all', () => {
  const spans = readBack(makeTrace().spans)
  // The first batches of each stage carry transfers 1–3.
  const prepare = spans.find((s) => s.name === 'prepare batch')
  const position = spans.find((s) => s.name === 'position batch')
  // The position chunk joined the prepare chunk's (shared) transaction: its SQL ran under the prepare
  // batch, but for one statement (its own read) under its own.
  for (const sql of spans.filter((s) => s.parentSpanId === position.spanId && s.kind === 'CLIENT').slice(1)) Object.assign(sql, { traceId: prepare.traceId, parentSpanId: prepare.spanId })
  position.attributes['switchyard.transaction.span_id'] = prepare.spanId
  const t = byId(analyze(spans), 0)
  const sqlOf = (label) => t.events.find((e) => e.label === label).sqlStatements
  // 3 + 4 statements for 3 + 3 records.
  expect(sqlOf('prepare')).toBeCloseTo(7 / 6, 12)
  expect(sqlOf('position reserve')).toBeCloseTo(7 / 6, 12)
  expect(t.events.find((e) => e.label === 'position reserve').batchSize).toBe(3)
})

test('one trace tree, or joined by transfer id when the payee started a new trace', () => {
  const r = analyze(readBack(makeTrace().spans))
  expect(r.transfers.map((t) => t.link)).toEqual(['tree', 'joined', 'tree', 'joined', 'tree', 'joined', 'tree'])
  expect([byId(r, 0).traces, byId(r, 0).roots]).toEqual([1, 1])
  expect([byId(r, 1).traces, byId(r, 1).roots]).toEqual([2, 2])
})

test('a span missing from the traces breaks the tree even within one trace', () => {
  const spans = readBack(makeTrace({ transfers: 1, delays: {} }).spans)
  // The payee's PUT continues the trace from the callback that reached it.
  const callback = spans.find((s) => s.kind === 'CLIENT' && s.attributes['switchyard.stage'] === 'callback')
  const t = analyze(spans.filter((s) => s !== callback)).transfers[0]
  expect([t.link, t.traces, t.roots, t.events.length]).toEqual(['joined', 1, 2, 11])
})

test('request spans without the transfer id join through a child, their path, or their trace', () => {
  const spans = readBack(makeTrace({ transfers: 2, delays: {} }).spans)
  const requests = spans.filter((s) => s.kind === 'SERVER')
  // Transfer 2's request spans carry no id; only their route-handler children do.
  expect(requests.filter((s) => !s.attributes['switchyard.transfer_id'])).toHaveLength(2)
  expect(analyze(spans).transfers.map((t) => t.events.filter((e) => e.kind === 'api').length)).toEqual([2, 2])

  // Without the tagged children: the PUT by its path; the POST by its trace.
  const untagged = spans.filter((s) => !(s.kind === 'INTERNAL' && s.name.startsWith('handler')))
    .map((s) => (s.kind === 'SERVER' ? { ...s, attributes: { ...s.attributes, 'switchyard.transfer_id': undefined } } : s))
  const r = analyze(untagged)
  expect(r.unassigned).toBe(0)
  expect(r.transfers.map((t) => t.events.filter((e) => e.kind === 'api').map((e) => e.label))).toEqual([
    ['API POST /transfers', 'API PUT /transfers/{id}'], ['API POST /transfers', 'API PUT /transfers/{id}']
  ])
})

test('a stage span whose batch span is missing (a message that started its own trace) is flagged, its SQL unknown', () => {
  const spans = readBack(makeTrace({ transfers: 1, delays: {} }).spans)
  const prepareBatch = spans.find((s) => s.name === 'prepare batch')
  const t = analyze(spans.filter((s) => s !== prepareBatch)).transfers[0]
  const prepare = t.events.find((e) => e.label === 'prepare')
  expect([prepare.batchMissing, prepare.sqlStatements, prepare.batchSize]).toEqual([true, 0, null])
  expect(t.events.filter((e) => e.batchMissing)).toHaveLength(1)
})

test('SQL under a request is charged to it whole; failed spans are marked', () => {
  const spans = readBack(makeTrace({ transfers: 1, delays: {} }).spans)
  const post = spans.find((s) => s.kind === 'SERVER' && s.attributes['http.request.method'] === 'POST')
  const handler = spans.find((s) => s.parentSpanId === post.spanId)
  spans.push({ ...handler, spanId: 'f'.repeat(16), parentSpanId: handler.spanId, name: 'execute', kind: 'CLIENT', durationMs: 0.5, attributes: { 'db.system.name': 'mysql', 'db.query.text': 'SELECT 1' } })
  const commit = spans.find((s) => s.attributes['switchyard.action'] === 'commit')
  commit.status = { code: 2, message: 'deadlock' }
  const t = analyze(spans).transfers[0]
  expect([t.events[0].sqlStatements, t.events[0].sqlMs]).toEqual([1, 0.5])
  expect(t.events.filter((e) => e.error).map((e) => e.label)).toEqual(['position commit'])
})
