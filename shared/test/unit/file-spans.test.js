'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const v8 = require('node:v8')
const vm = require('node:vm')
const { createFileSpanProcessor } = require('../../src/tracing/file-spans')

/**
 * A ReadableSpan as the SDK hands it to onEnd.
 * @param {number} i @param {number} [traceFlags] 1 = sampled
 */
function span (i, traceFlags = 1) {
  return {
    spanContext: () => ({ traceId: 'a'.repeat(32), spanId: i.toString(16).padStart(16, '0'), traceFlags }),
    parentSpanContext: i ? { spanId: '0'.repeat(16) } : undefined,
    name: `stage ${i}`,
    kind: 4,
    resource: { attributes: { 'service.name': 'test' } },
    startTime: [1700000000, i * 1000],
    endTime: [1700000000, i * 1000 + 500000],
    attributes: { 'switchyard.transfer_id': `t-${i}` },
    links: [{ context: { traceId: 'b'.repeat(32), spanId: 'c'.repeat(16) } }],
    status: { code: 0 }
  }
}

/** @param {string} file */
const readLines = (file) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))

describe('file span processor', () => {
  /** @type {string} */
  let dir
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spans-')) })
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

  test('makes the directory and its missing parents, and says so when it cannot, instead of hanging', async () => {
    const nested = path.join(dir, 'a', 'b', 'c')
    await createFileSpanProcessor({ dir: nested, service: 'test' }).shutdown()
    expect(fs.statSync(nested).isDirectory()).toBe(true)
    // fs.mkdirSync(…, { recursive: true }) never returned for this one.
    expect(() => createFileSpanProcessor({ dir: '/proc/switchyard-traces/x', service: 'test' }))
      .toThrow(/^cannot make the trace directory \/proc\/switchyard-traces\/x \(TRACING_DIR\): ENOENT/)
    const file = path.join(dir, 'a-file')
    fs.writeFileSync(file, '')
    expect(() => createFileSpanProcessor({ dir: path.join(file, 'x'), service: 'test' })).toThrow(/ENOTDIR/)
  })

  test('another process making the same directories at the same time is no failure', async () => {
    // The bench starts the API and the handlers at once on one TRACING_DIR:
    // here the other process makes `traced` just after this one made its parent.
    const parent = path.join(dir, 'traces')
    const target = path.join(parent, 'traced')
    const mkdirSync = fs.mkdirSync
    const spy = jest.spyOn(fs, 'mkdirSync').mockImplementation((p, ...rest) => {
      const made = mkdirSync(p, ...rest)
      if (p === parent) mkdirSync(target)
      return made
    })
    try {
      await createFileSpanProcessor({ dir: target, service: 'test' }).shutdown()
    } finally {
      spy.mockRestore()
    }
    expect(fs.statSync(target).isDirectory()).toBe(true)
  })

  test('writes one line per ended span, in order, in the gap report format', async () => {
    const processor = createFileSpanProcessor({ dir, service: 'svc' })
    for (let i = 0; i < 3; i++) processor.onEnd(span(i))
    await processor.forceFlush()
    const lines = readLines(processor.file)
    expect(lines.map((l) => l.spanId)).toEqual(['0000000000000000', '0000000000000001', '0000000000000002'])
    expect(lines[0].parentSpanId).toBeNull()
    expect(lines[1]).toEqual({
      traceId: 'a'.repeat(32),
      spanId: '0000000000000001',
      parentSpanId: '0000000000000000',
      name: 'stage 1',
      kind: 'CONSUMER',
      service: 'test',
      start: 1700000000000.001,
      end: 1700000000000.501,
      durationMs: expect.closeTo(0.5, 9),
      attributes: { 'switchyard.transfer_id': 't-1' },
      links: [{ traceId: 'b'.repeat(32), spanId: 'c'.repeat(16), attributes: {} }],
      status: { code: 0, message: '' }
    })
    await processor.shutdown()
  })

  test('lines reach the file on their own within flushMs, and at once past the high-water mark', async () => {
    /** Waits (bounded) until `file` holds `n` lines; nothing asks for a flush. @param {string} file @param {number} n */
    const untilLines = async (file, n) => {
      const before = Date.now()
      while ((fs.existsSync(file) ? readLines(file).length : 0) < n && Date.now() - before < 5000) await new Promise((resolve) => setTimeout(resolve, 5))
    }
    // The timer writes a lone line.
    const timed = createFileSpanProcessor({ dir, service: 'timed', flushMs: 20 })
    timed.onEnd(span(0))
    await untilLines(timed.file, 1)
    expect(readLines(timed.file)).toHaveLength(1)
    await timed.shutdown()

    // Each line is a few hundred characters: ten of them pass 2,000, and the
    // write starts without the timer (a minute away here).
    const full = createFileSpanProcessor({ dir, service: 'full', flushMs: 60000, highWaterChars: 2000 })
    for (let i = 1; i <= 10; i++) full.onEnd(span(i))
    await untilLines(full.file, 10)
    expect(readLines(full.file).length).toBeGreaterThanOrEqual(10)
    await full.shutdown()
    expect(readLines(full.file)).toHaveLength(10)
  })

  test('keeps no span object once it has ended', async () => {
    v8.setFlagsFromString('--expose-gc')
    const gc = vm.runInNewContext('gc')
    const processor = createFileSpanProcessor({ dir, service: 'svc', flushMs: 60000 })
    /** @type {WeakRef<object>[]} */
    const refs = []
    const endSpans = () => {
      for (let i = 0; i < 100; i++) {
        const s = span(i)
        refs.push(new WeakRef(s))
        processor.onEnd(s)
      }
    }
    endSpans()
    // The lines wait for their write; the spans they came from are garbage.
    await new Promise((resolve) => setImmediate(resolve))
    gc()
    await new Promise((resolve) => setImmediate(resolve))
    gc()
    expect(refs.filter((r) => r.deref()).length).toBe(0)
    await processor.shutdown()
    expect(readLines(processor.file)).toHaveLength(100)
  })

  test('spans that are not sampled, and spans ended after shutdown, are not written', async () => {
    const processor = createFileSpanProcessor({ dir, service: 'svc' })
    processor.onEnd(span(0, 0))
    processor.onEnd(span(1))
    await processor.shutdown()
    expect(() => processor.onEnd(span(2))).not.toThrow()
    await processor.forceFlush()
    expect(readLines(processor.file).map((l) => l.spanId)).toEqual(['0000000000000001'])
  })
})
