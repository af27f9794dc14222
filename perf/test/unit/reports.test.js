'use strict'

const { makeTrace, readBack, transferIdFor } = require('../fixtures/make-trace')
const { buildReport, toJson } = require('../../src/analyze/report')
const { toText } = require('../../src/analyze/report-text')
const { toHtml } = require('../../src/analyze/report-html')

const loaded = (spans, extra = {}) => ({ files: ['/x/a.jsonl'], lines: spans.length, spans, malformed: { count: 0, samples: [] }, duplicates: 0, ...extra })

test('the text report: summary line, event table, stages, SQL and largest gaps', () => {
  const report = buildReport(loaded(readBack(makeTrace().spans), { malformed: { count: 2, samples: [] } }), { top: 3, transferIds: [transferIdFor(0)] })
  const text = toText(report)
  expect(text).toContain('Switchyard gap report: 7 transfers from 169 spans in 1 file\n')
  expect(text).toContain('  4 in one trace tree, 3 joined by transfer id')
  expect(text).toContain('  total ms                     55.00 / 70.00 / 70.00 / 70.00')
  expect(text).toContain('note: 2 malformed lines skipped')
  expect(text).toContain(`Transfer ${transferIdFor(0)}: 12 events / 17.75 ms work / 30.00 ms total, one trace tree`)
  const lines = text.split('\n')
  const row = (label) => lines.find((l) => new RegExp(`^\\s+\\d+  ${label} `).test(l)).trim().split(/\s{2,}/)
  // #, event, at, gap, queue, work, SQL, SQL ms, batch, service, detail
  expect(row('position reserve')).toEqual(['3', 'position reserve', '6.00', '1.50', '2.00', '2.50', '1.33', '0.33', '3', 'switchyard-position', 'switchyard.transfer-position[0]@0'])
  // The two final notifications differ only in whom they are for.
  expect(lines.filter((l) => /^\s+\d+ {2}notification /.test(l)).map((l) => l.trim().split(/\s{2,}/).pop()))
    .toEqual(['switchyard.notification[0]@0, to payeefsp', 'switchyard.notification[0]@3, to payerfsp', 'switchyard.notification[0]@6, to payeefsp'])
  expect(row('API PUT /transfers/\\{id\\}')).toEqual(['6', 'API PUT /transfers/{id}', '18.50', '5.00', '–', '1.00', '0.00', '0.00', '–', 'switchyard-api', 'HTTP 200'])
  expect(lines.find((l) => l.trim().startsWith('position commit')).trim().split(/\s+/).slice(2, 11))
    .toEqual(['7', '1.50', '41.50', '41.50', '41.50', '2.00', '2.00', '2.00', '2.00'])
  expect(text).toContain('  statements  mean 6.86  p50 5.33  p95 16.00  p99 16.00  max 16.00')
  expect(text).toContain(`   41.00  ${transferIdFor(3)}  22.00  fulfil → position commit`)
})

test('a transfer not seen whole is left out of the distributions and counted', () => {
  const spans = readBack(makeTrace().spans)
  // Transfer 1's POST is not in the files (the run's files began after it).
  const post = spans.find((s) => s.kind === 'SERVER' && s.attributes['url.path'] === '/transfers' && s.attributes['switchyard.transfer_id'] === transferIdFor(0))
  const report = buildReport(loaded(spans.filter((s) => s !== post && s.parentSpanId !== post.spanId)), { top: 3 })
  expect(report.transfers).toHaveLength(7)
  expect(report.summary.transfers).toBe(6)
  expect(report.run.incompleteTransfers).toBe(1)
  expect(toText(report)).toContain('1 transfer without the payer\'s POST or a final callback left out of the distributions')
})

test('without --transfer the slowest transfers are shown', () => {
  const text = toText(buildReport(loaded(readBack(makeTrace().spans)), { top: 2 }))
  expect(text).toContain('Slowest 2 transfers')
  expect(text.match(/^Transfer /gm)).toHaveLength(2)
  expect(text).toContain(`Transfer ${transferIdFor(3)}: 12 events / 17.75 ms work / 70.00 ms total, joined by transfer id (2 traces, 2 roots)`)
})

test('JSON keeps every number and reduces spans to their ids', () => {
  const json = toJson(buildReport(loaded(readBack(makeTrace().spans)), { top: 1 }))
  expect(json.transfers).toHaveLength(7)
  expect(json.transfers[0]).toEqual({ id: transferIdFor(0), firstStart: 1795223487000, workMs: 17.75, totalMs: 30, traces: 1, roots: 1, link: 'tree', sqlStatements: expect.any(Number), sqlMs: expect.any(Number), eventCount: 12 })
  expect(json.details[0].events[7]).toMatchObject({ label: 'position commit', gapBeforeMs: 41, queueGapMs: 41.5, gapFrom: 'fulfil', service: 'switchyard-position', name: 'position process' })
  expect(json.details[0].events[7].span).toBeUndefined()
  expect(JSON.parse(JSON.stringify(json))).toEqual(json)
})

test('the HTML page: one row per event with its stage, self-contained, everything escaped', () => {
  const spans = readBack(makeTrace({ transfers: 2, delays: {} }).spans)
  const hostile = '<script>alert("x")</script>&\''
  for (const s of spans) {
    if (s.attributes['switchyard.transfer_id'] === transferIdFor(0)) s.attributes['switchyard.transfer_id'] = hostile
    if (s.service === 'switchyard-api') s.service = hostile
  }
  const report = buildReport(loaded(spans), { top: 5 })
  const html = toHtml(report, { generatedAt: new Date(0) })
  const rows = html.match(/<div class="row[^"]*" data-stage="[^"]+"/g)
  expect(rows).toHaveLength(24)
  expect(rows.filter((r) => r.endsWith('data-stage="position"'))).toHaveLength(4)
  expect(html).toContain('<table class="summary">')
  expect(html).toContain('12 events / 17.75 ms work / 30.00 ms total')
  // The only script is the page's own; the hostile id appears only escaped.
  expect(html.match(/<script/g)).toHaveLength(1)
  expect(html).not.toContain('alert("x")')
  expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;')
  // Nothing is loaded from anywhere.
  expect(html).not.toMatch(/(src|href)\s*=\s*["']?(https?:|\/\/)/i)
  expect(html).not.toMatch(/@import|url\(/i)
  expect(html).toContain("default-src 'none'")
})

test('a callback sent as its stage committed (CALLBACK_EARLY) is marked early in the detail', () => {
  const spans = readBack(makeTrace().spans)
  const callbacks = spans.filter((s) => s.kind === 'CLIENT' && s.attributes['switchyard.stage'] === 'callback' && s.attributes['switchyard.transfer_id'] === transferIdFor(0))
  expect(callbacks.length).toBeGreaterThan(1)
  callbacks[0].attributes['switchyard.callback.early'] = true
  const report = buildReport(loaded(spans), { top: 1, transferIds: [transferIdFor(0)] })
  const details = report.details[0].events.filter((e) => e.kind === 'callback').map((e) => e.detail)
  expect(details.filter((d) => /, early$/.test(d))).toHaveLength(1)
  expect(details.filter((d) => !/early/.test(d))).toHaveLength(callbacks.length - 1)
})
