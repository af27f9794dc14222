'use strict'

// Writes every ended span as one JSON line to a file: the input of the gap
// report (perf/src/analyze). One file per process, so concurrent writers never
// interleave lines.
//
// A span processor rather than an exporter behind the SDK's
// BatchSpanProcessor. That processor keeps every ended span object until its
// next export (up to 200 ms and thousands of spans later), so at 100%
// sampling a busy process carried thousands of live span objects — their
// attributes, links, contexts — into every scavenge, which copied them and
// promoted many to the old generation: a traced handler process made a third
// more scavenges, each half as long again as untraced. Here a span becomes
// its line the moment it ends, so the span object dies young, and only the
// lines (a few hundred bytes each) wait for the next write: every `flushMs`,
// or at once when `highWaterChars` have gathered.

const fs = require('node:fs')
const path = require('node:path')
const { TraceFlags, diag } = require('@opentelemetry/api')

const KINDS = ['INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER']

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
    links: (span.links || []).map((/** @type {any} */ l) => ({ traceId: l.context.traceId, spanId: l.context.spanId, attributes: l.attributes || {} })),
    status: { code: span.status.code, message: span.status.message || '' }
  }
}

/**
 * Makes a directory and its missing parents. Not fs.mkdirSync(dir,
 * { recursive: true }): for a path it cannot create under an existing parent
 * (anything under /proc) Node 20 retries for ever and the process never
 * starts; here that is an error, naming the directory. Another process may
 * make the same directories at the same time (the bench starts the API and
 * the handlers together, on one TRACING_DIR): one that exists by the time
 * this one tries is as good as made.
 * @param {string} dir an absolute path
 */
function makeDir (dir) {
  const made = tryMakeDir(dir)
  if (made === true) return
  const parent = path.dirname(dir)
  if (made.code !== 'ENOENT' || parent === dir) throw made
  makeDir(parent)
  const again = tryMakeDir(dir)
  if (again !== true) throw again
}

/**
 * @param {string} dir
 * @returns {true | NodeJS.ErrnoException} true once it exists as a directory (made here or not)
 */
function tryMakeDir (dir) {
  try {
    fs.mkdirSync(dir)
    return true
  } catch (err) {
    const error = /** @type {NodeJS.ErrnoException} */ (err)
    return error.code === 'EEXIST' && fs.statSync(dir).isDirectory() ? true : error
  }
}

/**
 * A SpanProcessor (onStart, onEnd, forceFlush, shutdown) that appends spans
 * to `<dir>/<service>-<pid>.jsonl`.
 * @param {{ dir: string, service: string, flushMs?: number, highWaterChars?: number }} opts
 */
function createFileSpanProcessor ({ dir, service, flushMs = 100, highWaterChars = 256 * 1024 }) {
  try {
    makeDir(path.resolve(dir))
  } catch (err) {
    throw new Error(`cannot make the trace directory ${dir} (TRACING_DIR): ${/** @type {Error} */ (err).message}`, { cause: err })
  }
  const file = path.join(dir, `${service}-${process.pid}.jsonl`)
  /** @type {fs.WriteStream | null} */
  let stream = fs.createWriteStream(file, { flags: 'a' })
  let failed = false
  stream.on('error', (err) => {
    // Reported once: tracing must never take the process down with it.
    if (!failed) diag.error(`trace file ${file}: ${err.message}`)
    failed = true
  })
  /** @type {string[]} */
  let lines = []
  let chars = 0
  /** @type {NodeJS.Timeout | null} */
  let timer = null

  /** Hands the gathered lines to the stream; resolves when they are written. @returns {Promise<void>} */
  function flush () {
    if (timer) clearTimeout(timer)
    timer = null
    const s = stream
    if (!s || !lines.length) return Promise.resolve()
    const text = lines.join('\n') + '\n'
    lines = []
    chars = 0
    return new Promise((resolve) => s.write(text, () => resolve()))
  }

  return {
    file,
    onStart () {},
    /** @param {any} span a ReadableSpan */
    onEnd (span) {
      if (!stream || (span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return
      const line = JSON.stringify(toRecord(span))
      lines.push(line)
      chars += line.length
      if (chars >= highWaterChars) flush()
      else if (!timer) {
        timer = setTimeout(flush, flushMs)
        timer.unref()
      }
    },
    forceFlush: flush,
    async shutdown () {
      await flush()
      const s = stream
      stream = null
      if (s) await new Promise((resolve) => s.end(resolve))
    }
  }
}

module.exports = { createFileSpanProcessor }
