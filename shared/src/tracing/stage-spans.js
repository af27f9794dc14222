'use strict'

// Spans for one chunk of a consumer's work. Handlers consume in batches, but
// a performance engineer follows one transfer: so each message gets its own
// stage span whose parent is the context it arrived with, and the chunk's DB
// transaction gets a batch span (its SQL spans are children of it) linked to
// those stage spans. Each record's trace headers are rewritten to its stage
// span, so whatever the handler emits for it continues the transfer's trace.

const { trace, propagation, SpanKind, SpanStatusCode, ROOT_CONTEXT } = require('@opentelemetry/api')

// Asked for per chunk, not once at load: a tracer obtained before the SDK is
// registered (through another copy of @opentelemetry/api) stays a no-op.

/**
 * @param {{ stage: string, topic: string, partition: number, pickedUpAt: number,
 *   records: import('../kafka/envelope').IncomingMessage[] }} chunk
 */
function startStageSpans ({ stage, topic, partition, pickedUpAt, records }) {
  const tracer = trace.getTracer('switchyard')
  const spans = records.map((r) => {
    const value = r.value && typeof r.value === 'object' ? r.value : {}
    const attributes = {
      'switchyard.stage': stage,
      'messaging.system': 'kafka',
      'messaging.destination.name': topic,
      'messaging.kafka.destination.partition': partition,
      'messaging.kafka.message.offset': Number(r.offset),
      'switchyard.batch.size': records.length,
      'switchyard.queue_gap_ms': Math.max(0, pickedUpAt - r.timestamp)
    }
    if (typeof value.transferId === 'string') attributes['switchyard.transfer_id'] = value.transferId
    const action = value.action || value.type
    if (typeof action === 'string') attributes['switchyard.action'] = action
    // Notifications name their recipient, so a transfer's two final
    // notifications can be told apart.
    if (typeof value.to === 'string') attributes['switchyard.notify.to'] = value.to
    // Started now, on the tracer's own (monotonic) clock like every span it
    // is compared with, not at pickedUpAt (wall clock, whole milliseconds):
    // a callback tried a moment after pickup must not seem to start first.
    const span = tracer.startSpan(`${stage} process`, { kind: SpanKind.CONSUMER, attributes }, propagation.extract(ROOT_CONTEXT, r.headers))
    /** @type {Record<string, string>} */
    const carrier = {}
    propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier)
    r.headers = { ...r.headers, ...carrier }
    return span
  })
  const batch = tracer.startSpan(`${stage} batch`, {
    kind: SpanKind.INTERNAL,
    attributes: { 'switchyard.stage': stage, 'switchyard.batch.size': records.length, 'messaging.destination.name': topic, 'messaging.kafka.destination.partition': partition },
    links: spans.map((s) => ({ context: s.spanContext() }))
  }, ROOT_CONTEXT)
  const batchSpanId = batch.spanContext().spanId
  for (const s of spans) s.setAttribute('switchyard.batch.span_id', batchSpanId)

  return {
    /** The context to run the chunk's transaction in. */
    batchContext: trace.setSpan(ROOT_CONTEXT, batch),
    /** @param {any} [err] */
    end (err) {
      for (const s of [...spans, batch]) {
        if (err) {
          s.recordException(err)
          s.setStatus({ code: SpanStatusCode.ERROR, message: String(err.message || err) })
        }
        s.end()
      }
    }
  }
}

module.exports = { startStageSpans }
