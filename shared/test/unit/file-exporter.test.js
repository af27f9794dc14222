'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { createFileSpanExporter } = require('../../src/tracing/file-exporter')

/** A ReadableSpan as the BatchSpanProcessor hands it over. @param {number} i */
function span (i) {
  return {
    spanContext: () => ({ traceId: 'a'.repeat(32), spanId: i.toString(16).padStart(16, '0') }),
    parentSpanContext: i ? { spanId: '0'.repeat(16) } : undefined,
    name: `stage ${i}`,
    kind: 4,
    resource: { attributes: { 'service.name': 'test' } },
    startTime: [1700000000, i * 1000],
    endTime: [1700000000, i * 1000 + 500000],
    attributes: { 'switchyard.transfer_id': `t-${i}` },
    links: [],
    status: { code: 0 }
  }
}

/** @param {ReturnType<typeof createFileSpanExporter>} exporter @param {any[]} spans */
const exportAll = (exporter, spans) => new Promise((resolve) => exporter.export(spans, resolve))

describe('file span exporter', () => {
  /** @type {string} */
  let dir
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spans-')) })
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

  test('writes one line per span, in the gap report format', async () => {
    const exporter = createFileSpanExporter({ dir, service: 'svc' })
    const result = await exportAll(exporter, [span(0), span(1)])
    await exporter.shutdown()
    expect(result).toEqual({ code: 0 })
    const lines = fs.readFileSync(exporter.file, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    expect(lines).toHaveLength(2)
    expect(lines[1]).toMatchObject({ spanId: '0000000000000001', parentSpanId: '0000000000000000', name: 'stage 1', kind: 'CONSUMER', service: 'test', durationMs: 0.5 })
  })

  test('a large batch lets the event loop run while it is serialised, and every span arrives in order', async () => {
    const exporter = createFileSpanExporter({ dir, service: 'svc' })
    let serialised = 0
    const spans = Array.from({ length: 2000 }, (_, i) => {
      const s = span(i)
      const context = s.spanContext
      return { ...s, spanContext: () => { serialised++; return context() } }
    })
    /** @type {number | undefined} */
    let atFirstTurn
    setImmediate(() => { atFirstTurn = serialised })
    const result = await exportAll(exporter, spans)
    await exporter.shutdown()
    expect(result).toEqual({ code: 0 })
    // Other work (a consumer's next batch) got a turn before the batch was through.
    expect(atFirstTurn).toBeGreaterThan(0)
    expect(atFirstTurn).toBeLessThan(spans.length)
    const ids = fs.readFileSync(exporter.file, 'utf8').trim().split('\n').map((l) => JSON.parse(l).spanId)
    expect(ids).toEqual(spans.map((_, i) => i.toString(16).padStart(16, '0')))
  })

  test('after shutdown an export fails instead of being lost silently', async () => {
    const exporter = createFileSpanExporter({ dir, service: 'svc' })
    await exporter.shutdown()
    const result = /** @type {any} */ (await exportAll(exporter, [span(0)]))
    expect(result.code).toBe(1)
    expect(result.error.message).toMatch(/shut down/)
  })
})
