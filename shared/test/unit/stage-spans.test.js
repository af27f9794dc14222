'use strict'

// What a handler's chunk leaves in the traces: one batch span linked to each
// message's trace with what the stage recorded about it, the messages' trace
// headers passed on as they came, and nothing at all for a chunk whose
// transfers are not sampled.

const { trace, propagation, context, TraceFlags, ROOT_CONTEXT } = require('@opentelemetry/api')
const { W3CTraceContextPropagator } = require('@opentelemetry/core')
const { TracerProvider, InMemorySpanExporter, SimpleSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, SamplingDecision } = require('@opentelemetry/sdk-trace')
const { startStageSpans } = require('../../src/tracing/stage-spans')
const { linkedSampler, spanLimits } = require('../../src/tracing/register')
const { loadConfig } = require('../../src/config')

const exporter = new InMemorySpanExporter()
const sampler = new ParentBasedSampler({ root: linkedSampler(new TraceIdRatioBasedSampler(1)) })
// The limits registerTracing() gives the SDK, with the default configuration.
const provider = new TracerProvider({ sampler, spanLimits: spanLimits(loadConfig({})), spanProcessors: [new SimpleSpanProcessor({ exporter })] })
/** The spans ended so far, once the processor has handed them over. */
const finished = async () => { await provider.forceFlush(); return exporter.getFinishedSpans() }
beforeAll(() => {
  trace.setGlobalTracerProvider(provider)
  propagation.setGlobalPropagator(new W3CTraceContextPropagator())
})
afterEach(() => exporter.reset())
afterAll(() => { trace.disable(); propagation.disable(); context.disable() })

const traceparent = (n, sampled = true) => `00-${String(n).repeat(32)}-${String(n).repeat(16)}-0${sampled ? 1 : 0}`

/** @param {number} offset @param {Record<string, string>} headers @param {any} value */
const record = (offset, headers, value) => ({
  topic: 'sy.position', partition: 3, offset: String(offset), key: 'k', value, headers, timestamp: 1000 + offset, raw: JSON.stringify(value)
})

test('one batch span per chunk, linked to each message\'s trace with its offset, queue gap, transfer and action', async () => {
  const records = [
    record(7, { traceparent: traceparent(1) }, { transferId: 't1', action: 'reserve' }),
    record(8, { traceparent: traceparent(2), tracestate: 'sy=1' }, { transferId: 't2', action: 'commit', to: 'payee' })
  ]
  const before = records.map((r) => ({ ...r.headers }))
  const spans = startStageSpans({ stage: 'position', topic: 'sy.position', partition: 3, pickedUpAt: 1010, records })
  spans.end()

  const ended = await finished()
  expect(ended.map((s) => s.name)).toEqual(['position batch'])
  const [batch] = ended
  expect(batch.attributes).toEqual({ 'switchyard.stage': 'position', 'messaging.system': 'kafka', 'messaging.destination.name': 'sy.position', 'messaging.kafka.destination.partition': 3, 'switchyard.batch.size': 2 })
  expect(batch.links.map((l) => [l.context.traceId, l.context.spanId, l.attributes])).toEqual([
    ['1'.repeat(32), '1'.repeat(16), { 'messaging.kafka.message.offset': 7, 'switchyard.queue_gap_ms': 3, 'switchyard.transfer_id': 't1', 'switchyard.action': 'reserve' }],
    ['2'.repeat(32), '2'.repeat(16), { 'messaging.kafka.message.offset': 8, 'switchyard.queue_gap_ms': 2, 'switchyard.transfer_id': 't2', 'switchyard.action': 'commit', 'switchyard.notify.to': 'payee' }]
  ])
  // What the handler emits for a message continues that message's trace.
  expect(records.map((r) => r.headers)).toEqual(before)
  // The transaction runs in the batch span: its SQL spans are its children.
  const sql = trace.getTracer('t').startSpan('execute', {}, spans.batchContext)
  sql.end()
  expect((await finished())[1].parentSpanContext.spanId).toBe(batch.spanContext().spanId)
})

test('a message without trace context starts its own trace, and what follows it joins that trace', async () => {
  const records = [record(1, {}, { transferId: 't9', action: 'timeout' }), record(2, { traceparent: traceparent(3) }, { transferId: 't3' })]
  const spans = startStageSpans({ stage: 'position', topic: 'sy.position', partition: 0, pickedUpAt: 1001, records })
  spans.end(new Error('deadlock'))

  const [own, batch] = await finished()
  expect([own.name, own.parentSpanContext, own.attributes['switchyard.transfer_id'], own.attributes['switchyard.batch.span_id']])
    .toEqual(['position process', undefined, 't9', batch.spanContext().spanId])
  expect(records[0].headers.traceparent).toBe(`00-${own.spanContext().traceId}-${own.spanContext().spanId}-01`)
  expect(batch.links.map((l) => l.context.spanId)).toEqual([own.spanContext().spanId, '3'.repeat(16)])
  // A failed chunk marks both.
  expect([own.status.code, batch.status.code]).toEqual([2, 2])
})

test('a chunk whose transfers are not sampled leaves no spans, nor does its SQL', async () => {
  const records = [record(1, { traceparent: traceparent(4, false) }, { transferId: 't4' })]
  const spans = startStageSpans({ stage: 'fulfil', topic: 'sy.fulfil', partition: 0, pickedUpAt: 1001, records })
  trace.getTracer('t').startSpan('execute', {}, spans.batchContext).end()
  spans.end()
  expect(await finished()).toEqual([])
  expect(records[0].headers.traceparent).toBe(traceparent(4, false))
  expect(trace.getSpanContext(spans.batchContext)?.traceFlags).toBe(TraceFlags.NONE)
})

test('a span that starts a trace is sampled when it links to a sampled span, else by the ratio', () => {
  const sampler = linkedSampler(new TraceIdRatioBasedSampler(0))
  const link = (n, sampled) => ({ context: { traceId: String(n).repeat(32), spanId: String(n).repeat(16), traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE } })
  const decide = (links) => sampler.shouldSample(ROOT_CONTEXT, 'f'.repeat(32), 'position batch', 0, {}, links).decision
  expect(decide([link(1, false), link(2, true)])).toBe(SamplingDecision.RECORD_AND_SAMPLED)
  expect(decide([link(1, false)])).toBe(SamplingDecision.NOT_RECORD)
  expect(decide([])).toBe(SamplingDecision.NOT_RECORD)
})

test('a chunk as large as KAFKA_MAX_BATCH_SIZE keeps a link for every message, the oldest included', async () => {
  const size = loadConfig({}).KAFKA_MAX_BATCH_SIZE
  const records = Array.from({ length: size }, (_, i) => record(i, { traceparent: traceparent((i % 9) + 1) }, { transferId: `t${i}`, action: 'reserve' }))
  startStageSpans({ stage: 'position', topic: 'sy.position', partition: 3, pickedUpAt: 5000, records }).end()
  const [batch] = (await finished()).filter((s) => s.name === 'position batch')
  expect(batch.links).toHaveLength(size)
  expect(batch.links[0].attributes['switchyard.transfer_id']).toBe('t0')
})

test('a chunk whose SQL ran in another chunk\'s transaction names that chunk\'s batch span', async () => {
  const first = startStageSpans({ stage: 'position', topic: 'sy.position', partition: 0, pickedUpAt: 1010, records: [record(1, { traceparent: traceparent(1) }, { transferId: 't1' })] })
  const second = startStageSpans({ stage: 'position', topic: 'sy.position', partition: 1, pickedUpAt: 1010, records: [record(2, { traceparent: traceparent(2) }, { transferId: 't2' })] })
  second.joinTransaction(first.batchContext)
  first.joinTransaction(first.batchContext) // its own: nothing to say
  first.end()
  second.end()
  const [a, b] = (await finished()).filter((s) => s.name === 'position batch')
  expect(a.attributes['switchyard.transaction.span_id']).toBeUndefined()
  expect(b.attributes['switchyard.transaction.span_id']).toBe(a.spanContext().spanId)
})

test('a chunk says how long it waited in the process before its transaction\'s work began', async () => {
  // Measured from the batch span's own start, on performance.now()'s clock.
  const before = performance.now()
  const spans = startStageSpans({ stage: 'fulfil', topic: 'sy.fulfil', partition: 0, pickedUpAt: 1000, records: [record(1, { traceparent: traceparent(1) }, { transferId: 't1' })] })
  const after = performance.now()
  spans.workStartedAt(after + 7)
  spans.end()
  const [batch] = (await finished()).filter((s) => s.name === 'fulfil batch')
  expect(batch.attributes['switchyard.wait_ms']).toBeGreaterThanOrEqual(7)
  expect(batch.attributes['switchyard.wait_ms']).toBeLessThanOrEqual(7 + (after - before) + 0.001)
})
