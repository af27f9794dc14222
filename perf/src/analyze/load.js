'use strict'

// Reads trace files (JSON lines, one span per line, one file per process)
// and indexes the spans. A line that is not a span is skipped and counted,
// never fatal: a process killed mid-write leaves a torn last line.

const fs = require('node:fs')
const path = require('node:path')
const readline = require('node:readline')

/** @typedef {import('./types').Span} Span */

const MAX_SAMPLES = 5

/**
 * The `*.jsonl` files named or inside the directories named, sorted, once each.
 * @param {string[]} inputs
 */
function listTraceFiles (inputs) {
  const files = new Set()
  for (const input of inputs) {
    let stat
    try { stat = fs.statSync(input) } catch { throw new Error(`cannot read ${input}: no such file or directory`) }
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(input).sort()) {
        if (name.endsWith('.jsonl')) files.add(path.resolve(input, name))
      }
    } else {
      files.add(path.resolve(input))
    }
  }
  return [...files]
}

const isFiniteNumber = (v) => typeof v === 'number' && Number.isFinite(v)

// Only the attributes the report reads are kept: a run has millions of
// spans, and SQL text alone would multiply the memory needed.
const KEPT_ATTRIBUTE = /^(switchyard\.|http\.|url\.|messaging\.|db\.system)/

/** @param {unknown} attributes */
function keptAttributes (attributes) {
  /** @type {Record<string, any>} */
  const kept = {}
  if (!attributes || typeof attributes !== 'object') return kept
  for (const [k, v] of Object.entries(attributes)) if (KEPT_ATTRIBUTE.test(k)) kept[k] = v
  return kept
}

/**
 * @param {string} line
 * @returns {{ span: Span } | { reason: string }}
 */
function parseSpan (line) {
  let v
  try { v = JSON.parse(line) } catch { return { reason: 'not JSON' } }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { reason: 'not an object' }
  if (typeof v.traceId !== 'string' || !v.traceId || typeof v.spanId !== 'string' || !v.spanId) return { reason: 'no traceId/spanId' }
  if (!isFiniteNumber(v.start) || !isFiniteNumber(v.end)) return { reason: 'no numeric start/end' }
  if (v.end < v.start) return { reason: 'end before start' }
  return {
    span: {
      traceId: v.traceId,
      spanId: v.spanId,
      parentSpanId: typeof v.parentSpanId === 'string' && v.parentSpanId ? v.parentSpanId : null,
      name: typeof v.name === 'string' ? v.name : '',
      kind: typeof v.kind === 'string' ? v.kind : 'INTERNAL',
      service: typeof v.service === 'string' ? v.service : '',
      start: v.start,
      end: v.end,
      durationMs: isFiniteNumber(v.durationMs) ? v.durationMs : v.end - v.start,
      attributes: keptAttributes(v.attributes),
      links: Array.isArray(v.links) ? v.links.filter((l) => l && typeof l.spanId === 'string').map((l) => ({ traceId: l.traceId, spanId: l.spanId, attributes: keptAttributes(l.attributes) })) : [],
      status: v.status && typeof v.status === 'object' ? { code: v.status.code, message: v.status.message } : { code: 0 }
    }
  }
}

// A batch span's link to one of its messages carries the message's offset
// (shared/src/tracing/stage-spans.js, docs/gap-report.md).
const RECORD_LINK = 'messaging.kafka.message.offset'
const BATCH_ATTRIBUTES = ['switchyard.stage', 'messaging.system', 'messaging.destination.name', 'messaging.kafka.destination.partition', 'switchyard.batch.size', 'switchyard.wait_ms']

/**
 * A handler traces a chunk of messages as one `<stage> batch` span with a
 * link per message, to the context the message arrived with, carrying what
 * the stage recorded about it. The report follows transfers, so each such
 * link becomes that message's stage span again: in the transfer's trace,
 * child of the span that sent the message, over the batch's time, with the
 * batch's attributes and the link's, and `switchyard.batch.span_id`. Its id
 * is the batch's with the link's index, the same however often it is read.
 * The batch's link then points at it, as a batch's links to its stage spans
 * always have. Spans of any other shape come back alone.
 * @param {Span} span
 * @returns {Span[]}
 */
function expandRecordLinks (span) {
  if (span.kind !== 'INTERNAL' || !span.links.some((l) => l.attributes && l.attributes[RECORD_LINK] !== undefined)) return [span]
  const shared = /** @type {Record<string, any>} */ ({ 'switchyard.batch.span_id': span.spanId })
  for (const k of BATCH_ATTRIBUTES) if (span.attributes[k] !== undefined) shared[k] = span.attributes[k]
  const out = [span]
  // The chunk's wait in the process for a transaction (switchyard.wait_ms)
  // is not the stage's work: its stage event starts when the work began,
  // and the wait shows in the gap before it. The start is rounded down to
  // the millisecond, as span starts are (OpenTelemetry takes them from
  // Date.now()): otherwise a callback the work sent within that millisecond
  // would start before the stage that sent it.
  const wait = Math.min(span.durationMs, Math.max(0, Number(span.attributes['switchyard.wait_ms']) || 0))
  const start = Math.max(span.start, Math.floor(span.start + wait))
  span.links = span.links.map((l, i) => {
    if (!l.attributes || l.attributes[RECORD_LINK] === undefined || typeof l.traceId !== 'string') return l
    const record = {
      traceId: l.traceId,
      spanId: `${span.spanId}.${i}`,
      parentSpanId: l.spanId,
      name: `${span.attributes['switchyard.stage']} process`,
      kind: 'CONSUMER',
      service: span.service,
      start,
      end: span.end,
      durationMs: span.durationMs - (start - span.start),
      attributes: { ...shared, ...l.attributes },
      links: [],
      status: span.status
    }
    out.push(record)
    return { traceId: record.traceId, spanId: record.spanId }
  })
  return out
}

/**
 * Reads every span of the given files and directories. The same span read
 * twice (a file named and also inside a directory named, or a copied file)
 * is kept once.
 * @param {string[]} inputs
 */
async function loadSpans (inputs) {
  const files = listTraceFiles(inputs)
  const seen = createSpanMap()
  /** @type {Span[]} */
  const spans = []
  const malformed = { count: 0, samples: /** @type {{ file: string, line: number, reason: string }[]} */ ([]) }
  let lines = 0
  let duplicates = 0
  for (const file of files) {
    const rl = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity })
    let n = 0
    for await (const line of rl) {
      n++
      if (!line.trim()) continue
      lines++
      const r = parseSpan(line)
      if ('reason' in r) {
        malformed.count++
        if (malformed.samples.length < MAX_SAMPLES) malformed.samples.push({ file, line: n, reason: r.reason })
        continue
      }
      if (!seen.add(r.span)) { duplicates++; continue }
      for (const span of expandRecordLinks(r.span)) if (span === r.span || seen.add(span)) spans.push(span)
    }
  }
  // The spans by trace and span id, for indexSpans: built once.
  return { files, lines, spans, malformed, duplicates, spanMap: seen }
}

/** @typedef {ReturnType<typeof createSpanMap>} SpanMap */

/** Spans by trace id, then span id: no key strings to build for millions of spans. */
function createSpanMap () {
  /** @type {Map<string, Map<string, Span>>} */
  const byTrace = new Map()
  return {
    /** @param {string} traceId @param {string} spanId */
    get: (traceId, spanId) => { const m = byTrace.get(traceId); return m && m.get(spanId) },
    /** @param {Span} s */
    add (s) {
      let m = byTrace.get(s.traceId)
      if (!m) byTrace.set(s.traceId, (m = new Map()))
      if (m.has(s.spanId)) return false
      m.set(s.spanId, s)
      return true
    }
  }
}

/**
 * Parent and child look-ups. Span ids are only unique within a trace, so
 * parents are found by trace and span id; `bySpanId` serves the references
 * that carry a span id alone (`switchyard.batch.span_id`).
 * @param {Span[]} spans
 * @param {SpanMap} [spanMap] exactly these spans by trace and span id (loadSpans builds it); built here if not given
 */
function indexSpans (spans, spanMap) {
  const all = spanMap || createSpanMap()
  /** @type {Map<string, Span>} */
  const bySpanId = new Map()
  /** @type {Map<Span, Span[]>} */
  const children = new Map()
  /** @type {Map<Span, Span>} */
  const parents = new Map()
  for (const s of spans) {
    if (!spanMap) all.add(s)
    bySpanId.set(s.spanId, s)
  }
  for (const s of spans) {
    const p = s.parentSpanId ? all.get(s.traceId, s.parentSpanId) : undefined
    if (!p) continue
    parents.set(s, p)
    const c = children.get(p)
    if (c) c.push(s)
    else children.set(p, [s])
  }
  return {
    bySpanId,
    get: all.get,
    /** @param {Span} s @returns {Span | undefined} */
    parentOf: (s) => parents.get(s),
    /** @param {Span} s @returns {Span[]} */
    childrenOf: (s) => children.get(s) || []
  }
}

module.exports = { listTraceFiles, parseSpan, expandRecordLinks, loadSpans, indexSpans }
