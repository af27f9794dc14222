'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { makeTrace, writeTrace, transferIdFor } = require('../fixtures/make-trace')

const CLI = path.join(__dirname, '../../src/analyze/cli.js')
const gaps = (...args) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' })
const made = []
const tempDir = () => made[made.push(fs.mkdtempSync(path.join(os.tmpdir(), 'gaps-cli-'))) - 1]
afterAll(() => { for (const d of made) fs.rmSync(d, { recursive: true, force: true }) })

function traceDir (spans = makeTrace().spans) {
  const dir = tempDir()
  writeTrace(dir, spans)
  return dir
}

test('a directory of trace files gives the text report', () => {
  const r = gaps(traceDir())
  expect(r.status).toBe(0)
  expect(r.stderr).toBe('')
  expect(r.stdout).toContain('Switchyard gap report: 7 transfers from 169 spans in 6 files')
  expect(r.stdout).toContain('Slowest 5 transfers')
})

test('--json, --top and --transfer; --html writes one page', () => {
  const dir = traceDir()
  const json = gaps(dir, '--json', '--top', '2')
  expect(json.status).toBe(0)
  const out = JSON.parse(json.stdout)
  expect(out.summary.transfers).toBe(7)
  expect(out.details.map((t) => t.id)).toEqual([transferIdFor(3), transferIdFor(4)])
  expect(out.largestGaps).toHaveLength(2)

  const html = path.join(tempDir(), 'sub', 'gaps.html')
  const one = gaps(path.join(dir, 'switchyard-api-101.jsonl'), dir, '--transfer', transferIdFor(1), '--html', html)
  expect(one.status).toBe(0)
  expect(one.stdout).toContain(`Transfer ${transferIdFor(1)}: 12 events / 17.75 ms work / 30.00 ms total, joined by transfer id`)
  expect(one.stderr).toBe(`gaps: wrote ${html}\n`)
  const page = fs.readFileSync(html, 'utf8')
  expect(page.match(/<section class="waterfall"/g)).toHaveLength(1)
  expect(page.match(/<div class="row/g)).toHaveLength(12)
})

test('malformed lines are skipped and counted on stderr', () => {
  const dir = traceDir()
  fs.appendFileSync(path.join(dir, 'switchyard-api-101.jsonl'), '{"torn":\nnot json either\n')
  const r = gaps(dir)
  expect(r.status).toBe(0)
  expect(r.stderr).toMatch(/^gaps: skipped 2 malformed lines \(first: .*switchyard-api-101\.jsonl:\d+: not JSON\)\n$/)
  expect(r.stdout).toContain('note: 2 malformed lines skipped')
})

test('exit 1 with a clear message when there is nothing to report', () => {
  const empty = gaps(tempDir())
  expect([empty.status, empty.stdout]).toEqual([1, ''])
  expect(empty.stderr).toMatch(/^gaps: no spans found in .* \(0 \.jsonl files read\)/)

  const junk = tempDir()
  fs.writeFileSync(path.join(junk, 'x-1.jsonl'), 'garbage\n{"traceId":1}\n')
  const bad = gaps(junk)
  expect(bad.status).toBe(1)
  expect(bad.stderr).toContain('gaps: skipped 2 malformed lines')
  expect(bad.stderr).toContain('gaps: no spans found')

  const sweepsOnly = gaps(traceDir(makeTrace().spans.filter((s) => s.service === 'switchyard-timeout')))
  expect(sweepsOnly.status).toBe(1)
  expect(sweepsOnly.stderr).toBe('gaps: 2 spans read, but no request, stage or callback span carries switchyard.transfer_id: no transfers to report\n')

  const unknown = gaps(traceDir(), '--transfer', 'nope')
  expect([unknown.status, unknown.stderr]).toEqual([1, 'gaps: transfer not found among 7: nope\n'])

  const missing = gaps(path.join(tempDir(), 'missing.jsonl'))
  expect(missing.status).toBe(1)
  expect(missing.stderr).toMatch(/^gaps: cannot read .*missing\.jsonl: no such file or directory\n$/)
})

test('exit 2 for bad arguments, with the usage', () => {
  expect(gaps().status).toBe(2)
  expect(gaps().stderr).toContain('usage: node perf/src/analyze/cli.js')
  expect(gaps(tempDir(), '--top', '0').status).toBe(2)
  expect(gaps(tempDir(), '--frobnicate').status).toBe(2)
  expect(gaps('--help')).toMatchObject({ status: 0, stdout: expect.stringContaining('usage:') })
})
