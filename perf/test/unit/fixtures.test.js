'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { makeTrace, writeTrace } = require('../fixtures/make-trace')

const COMMITTED = path.join(__dirname, '../../../test/fixtures/traces')

test('the sample traces in test/fixtures/traces are what the generator makes', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gaps-fixture-'))
  try {
    const files = writeTrace(dir, makeTrace().spans).map((f) => path.basename(f))
    expect(fs.readdirSync(COMMITTED).filter((f) => f.endsWith('.jsonl')).sort()).toEqual(files)
    for (const f of files) expect(fs.readFileSync(path.join(COMMITTED, f), 'utf8')).toBe(fs.readFileSync(path.join(dir, f), 'utf8'))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('the generator writes the file exporter\'s span format', () => {
  const { spans } = makeTrace({ transfers: 1 })
  for (const s of spans) {
    expect(Object.keys(s).sort()).toEqual(['attributes', 'durationMs', 'end', 'kind', 'links', 'name', 'parentSpanId', 'service', 'spanId', 'start', 'status', 'traceId'])
    expect(s.traceId).toMatch(/^[0-9a-f]{32}$/)
    expect(s.spanId).toMatch(/^[0-9a-f]{16}$/)
  }
})
