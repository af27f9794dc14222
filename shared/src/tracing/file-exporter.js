'use strict'

// A span exporter that appends one JSON object per span to a file: the input
// of the gap report (perf/src/analyze). One file per process, so concurrent
// writers never interleave lines.

const fs = require('node:fs')
const path = require('node:path')

const KINDS = ['INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER']
/** Spans serialised per turn of the event loop (about a millisecond's work). */
const SLICE = 200

/** @param {[number, number]} hr */
const toMs = (hr) => hr[0] * 1e3 + hr[1] / 1e6

/**
 * The gap report's span format (docs/gap-report.md).
 * @param {any} span a ReadableSpan
 */
function toRecord (span) {
  const ctx = span.spanContext()
  const parent = span.parentSpanContext
  const start = toMs(span.startTime)
  const end = toMs(span.endTime)
  return {
    traceId: ctx.traceId,
    spanId: ctx.spanId,
    parentSpanId: parent ? parent.spanId : null,
    name: span.name,
    kind: KINDS[span.kind] || String(span.kind),
    service: span.resource && span.resource.attributes['service.name'],
    start,
    end,
    durationMs: end - start,
    attributes: span.attributes,
    links: (span.links || []).map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId, attributes: l.attributes || {} })),
    status: { code: span.status.code, message: span.status.message || '' }
  }
}

/**
 * @param {{ dir: string, service: string }} opts
 */
function createFileSpanExporter ({ dir, service }) {
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, `${service}-${process.pid}.jsonl`)
  let stream = fs.createWriteStream(file, { flags: 'a' })
  return {
    file,
    /** @param {any[]} spans @param {(result: { code: number, error?: Error }) => void} done */
    export (spans, done) {
      /** @type {any} */
      let failed = null
      let next = 0
      // A batch of thousands of spans takes many milliseconds to serialise:
      // done in one go, it would stall every stage of this process at once
      // (a traced run's p99 showed it). Slices of SLICE spans, with a turn of
      // the event loop between them, spread that work thin.
      const step = () => {
        if (!stream) return done({ code: 1, error: new Error('exporter is shut down') })
        const end = Math.min(next + SLICE, spans.length)
        let text = ''
        for (; next < end; next++) text += JSON.stringify(toRecord(spans[next])) + '\n'
        const last = next >= spans.length
        stream.write(text, (err) => {
          if (err && !failed) failed = err
          if (last) done(failed ? { code: 1, error: failed } : { code: 0 })
        })
        if (!last) setImmediate(step)
      }
      step()
    },
    async forceFlush () {},
    shutdown () {
      const s = stream
      stream = null
      return s ? new Promise((resolve) => s.end(resolve)) : Promise.resolve()
    }
  }
}

module.exports = { createFileSpanExporter, toRecord }
