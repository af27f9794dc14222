'use strict'

// The span for one chunk of a consumer's work. Handlers consume in batches,
// and so does their tracing: one `<stage> batch` span per chunk, whose SQL
// spans are its children, with one link per message to the context that
// message arrived with (the transfer's trace). Each link carries what the
// stage records about that message (DESIGN rule 9): its transfer, action,
// offset and queue gap (time in Kafka from produce to pick-up). The stage's
// work is the batch span's own time.
//
// This is OpenTelemetry's convention for batch processing, and it is what
// makes tracing affordable at 100%: a span per message and stage was seven
// spans per transfer, each started, cleaned, serialised and collected, on the
// one event loop that runs the stages. A message's trace headers go on
// unchanged, so whatever a handler emits for it stays in the transfer's
// trace. The gap report (perf/src/analyze/load.js) turns each link back into
// that message's stage event.
//
// A message that arrives without trace context (the timeout handler's
// expiries) gets a span of its own as the root of a new trace, as before,
// and its headers are rewritten to it so what follows joins that trace.

const { trace, propagation, SpanKind, SpanStatusCode, TraceFlags, ROOT_CONTEXT } = require('@opentelemetry/api')
const { injectSpan } = require('./headers')

/** Marks a link as one message of the batch (the gap report's cue). */
const RECORD_LINK = 'messaging.kafka.message.offset'

// Asked for per chunk, not once at load: a tracer obtained before the SDK is
// registered (through another copy of @opentelemetry/api) stays a no-op.

/**
 * @param {{ stage: string, topic: string, partition: number, pickedUpAt: number,
 *   records: import('../kafka/envelope').IncomingMessage[] }} chunk
 */
function startStageSpans ({ stage, topic, partition, pickedUpAt, records }) {
  const tracer = trace.getTracer('switchyard')
  /** @type {import('@opentelemetry/api').Link[]} */
  const links = []
  /** @type {import('@opentelemetry/api').Span[]} */
  const own = []
  /** @type {import('@opentelemetry/api').SpanContext | undefined} */
  let firstUnsampled
  for (const r of records) {
    const upstream = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, r.headers))
    if (upstream) {
      // A message whose transfer is not sampled is not traced here either.
      if (upstream.traceFlags & TraceFlags.SAMPLED) links.push({ context: upstream, attributes: recordAttributes(r, pickedUpAt) })
      else firstUnsampled = firstUnsampled || upstream
      continue
    }
    // Untraced (no SDK, or not sampled) this is all a record costs.
    const span = tracer.startSpan(`${stage} process`, { kind: SpanKind.CONSUMER }, ROOT_CONTEXT)
    if (!span.isRecording()) continue
    span.setAttributes({ ...chunkAttributes(stage, topic, partition, records.length), ...recordAttributes(r, pickedUpAt) })
    r.headers = { ...r.headers, ...injectSpan(span) }
    own.push(span)
    links.push({ context: span.spanContext() })
  }
  // Nothing of this chunk is traced and some of it is not sampled: neither is
  // its transaction (its SQL spans see an unsampled parent).
  const batch = !links.length && firstUnsampled
    ? trace.wrapSpanContext(firstUnsampled)
    : tracer.startSpan(`${stage} batch`, { kind: SpanKind.INTERNAL, attributes: chunkAttributes(stage, topic, partition, records.length), links }, ROOT_CONTEXT)
  // The batch span's own clock: OpenTelemetry takes a span's start from
  // Date.now() and measures from there with performance.now().
  const startedAt = performance.now()
  const batchSpanId = batch.spanContext().spanId
  for (const s of own) s.setAttribute('switchyard.batch.span_id', batchSpanId)

  return {
    /** The context to run the chunk's transaction in. */
    batchContext: trace.setSpan(ROOT_CONTEXT, batch),
    /**
     * Says that this chunk's SQL ran in the transaction of another chunk's
     * batch span (chunks applied together run theirs under the first one's):
     * the gap report then shares that SQL among all their messages.
     * @param {import('@opentelemetry/api').Context | undefined} owner that chunk's batchContext
     */
    joinTransaction (owner) {
      joinTransaction(batch, owner)
    },
    /**
     * When the chunk's transaction began its work (a performance.now()
     * reading): the time before it, since the batch span started, the chunk
     * waited in this process for a transaction (the commit lane, others'
     * chunks), and the gap report counts it as waiting, not as the stage's
     * work. It is measured from the span's own start, to the microsecond: a
     * whole-millisecond wait from pick-up (Date.now()) could reach past the
     * first callback the work sent, when the span started a tick after
     * pick-up.
     * @param {number | undefined} at
     */
    workStartedAt (at) {
      if (at !== undefined && batch.isRecording()) batch.setAttribute(WAIT_MS, Math.max(0, Math.round((at - startedAt) * 1000) / 1000))
    },
    /** @param {any} [err] */
    end (err) {
      for (const s of [...own, batch]) {
        if (err) {
          s.recordException(err)
          s.setStatus({ code: SpanStatusCode.ERROR, message: String(err.message || err) })
        }
        s.end()
      }
    }
  }
}

/** How long a chunk waited in the process before its transaction's work began (see workStartedAt). */
const WAIT_MS = 'switchyard.wait_ms'

/** Names a span's transaction owner (see joinTransaction above). */
const TRANSACTION_OWNER = 'switchyard.transaction.span_id'

/**
 * @param {import('@opentelemetry/api').Span | undefined} span
 * @param {import('@opentelemetry/api').Context | undefined} owner
 */
function joinTransaction (span, owner) {
  const ownerSpan = owner && trace.getSpan(owner)
  if (!span || !ownerSpan || !span.isRecording()) return
  const ownerId = ownerSpan.spanContext().spanId
  if (ownerId !== span.spanContext().spanId) span.setAttribute(TRANSACTION_OWNER, ownerId)
}

/** @param {string} stage @param {string} topic @param {number} partition @param {number} size */
function chunkAttributes (stage, topic, partition, size) {
  return {
    'switchyard.stage': stage,
    'messaging.system': 'kafka',
    'messaging.destination.name': topic,
    'messaging.kafka.destination.partition': partition,
    'switchyard.batch.size': size
  }
}

/**
 * What the stage records about one message.
 * @param {import('../kafka/envelope').IncomingMessage} r @param {number} pickedUpAt
 */
function recordAttributes (r, pickedUpAt) {
  const value = r.value && typeof r.value === 'object' ? r.value : {}
  /** @type {import('@opentelemetry/api').Attributes} */
  const attributes = {
    [RECORD_LINK]: Number(r.offset),
    'switchyard.queue_gap_ms': Math.max(0, pickedUpAt - r.timestamp)
  }
  if (typeof value.transferId === 'string') attributes['switchyard.transfer_id'] = value.transferId
  const action = value.action || value.type
  if (typeof action === 'string') attributes['switchyard.action'] = action
  // Notifications name their recipient, so a transfer's two final
  // notifications can be told apart.
  if (typeof value.to === 'string') attributes['switchyard.notify.to'] = value.to
  return attributes
}

module.exports = { startStageSpans, joinTransaction, TRANSACTION_OWNER }
