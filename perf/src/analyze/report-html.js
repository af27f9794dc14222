'use strict'

// The gap report as one self-contained HTML page: summary, the waterfalls of
// the transfers shown in detail (pick one or see all), the per-stage
// distributions and the largest gaps. Every string from a trace is escaped;
// the Content-Security-Policy forbids loading anything from anywhere.

const { num, count, pct, linkText, escapeHtml: h } = require('./format')
const { waterfall } = require('./html-waterfall')
const { CSS, SCRIPT, STAGE_COLOURS } = require('./html-assets')

/** @typedef {ReturnType<typeof import('./report').buildReport>} Report */

/**
 * @param {string[]} heads
 * @param {(string | number)[][]} rows cells are escaped
 * @param {string} cls
 */
function tableHtml (heads, rows, cls) {
  const head = `<tr>${heads.map((t) => `<th>${h(t)}</th>`).join('')}</tr>`
  return `<table class="${cls}">${head}${rows.map((r) => `<tr>${r.map((c) => `<td>${h(c)}</td>`).join('')}</tr>`).join('')}</table>`
}

/** @param {import('./stats').Distribution} d */
const dist = (d, f = num) => [f(d.p50), f(d.p95), f(d.p99), f(d.max), num(d.mean)]

/** @param {Report} r */
function summaryTable (r) {
  const s = r.summary
  return tableHtml(['per transfer', 'p50', 'p95', 'p99', 'max', 'mean'], [
    ['events', ...dist(s.events, count)],
    ['work ms', ...dist(s.work)],
    ['total ms', ...dist(s.total)],
    ['SQL statements', ...dist(s.sqlStatements)],
    ['SQL ms', ...dist(s.sqlMs)]
  ], 'summary')
}

/** @param {Report} r */
function stageTable (r) {
  return tableHtml(['stage', 'events', 'queue p50', 'p95', 'p99', 'max', 'work p50', 'p95', 'p99', 'max', 'gap p50', 'max', 'SQL/transfer', 'SQL ms/transfer', 'batch'],
    r.stages.map((s) => [s.label, s.events, num(s.queue.p50), num(s.queue.p95), num(s.queue.p99), num(s.queue.max),
      num(s.work.p50), num(s.work.p95), num(s.work.p99), num(s.work.max), num(s.gap.p50), num(s.gap.max),
      num(s.sqlPerTransfer), num(s.sqlMsPerTransfer), num(s.meanBatchSize)]), 'stages')
}

/** @param {Report} r */
function gapTable (r) {
  if (!r.largestGaps.length) return '<p class="meta">No gaps: every event started while an earlier one was still running.</p>'
  return tableHtml(['gap ms', 'transfer', 'at ms', 'between'], r.largestGaps.map((g) => [num(g.gapMs), g.transferId, num(g.offsetMs), `${g.from} → ${g.to}`]), 'gaps')
}

/** @param {Report} r */
function transfersTable (r) {
  const rows = r.details.map((t) => `<tr><td><a href="#${h(`t-${t.id}`)}"><code>${h(t.id)}</code></a></td><td>${t.events.length}</td><td>${num(t.workMs)}</td><td>${num(t.totalMs)}</td><td>${pct(t.totalMs > 0 ? t.workMs / t.totalMs : null)}</td><td>${num(t.sqlStatements)}</td><td>${h(linkText(t))}</td></tr>`)
  return `<table class="transfers"><tr><th>transfer</th><th>events</th><th>work ms</th><th>total ms</th><th>work share</th><th>SQL</th><th>trace</th></tr>${rows.join('')}</table>`
}

function legend () {
  const stages = Object.keys(STAGE_COLOURS).map((s) => `<span><span class="swatch" data-stage="${s}"></span>${s === 'api' ? 'API request' : s}</span>`)
  return `<div class="legend">${stages.join('')}<span><span class="gap"></span>gap before: nothing of this transfer running</span><span><span class="queue"></span>queue: message produced → picked up</span></div>`
}

/**
 * @param {Report} r
 * @param {{ generatedAt?: Date }} [opts]
 */
function toHtml (r, { generatedAt } = {}) {
  const { run, summary } = r
  const chosen = r.details === r.slowest ? `the ${r.details.length} slowest` : 'the requested'
  const options = r.details.map((t) => `<option value="${h(t.id)}">${h(t.id)} (${num(t.totalMs)} ms)</option>`).join('')
  const notes = [
    run.malformed.count ? `${run.malformed.count} malformed lines skipped` : '',
    run.duplicates ? `${run.duplicates} duplicate spans ignored` : '',
    run.incompleteTransfers ? `${run.incompleteTransfers} transfers without the payer's POST or a final callback left out of the distributions` : '',
    run.unassignedEvents ? `${run.unassignedEvents} spans without a transfer` : '',
    run.missingBatches ? `${run.missingBatches} stage spans without their batch span (SQL not counted)` : ''
  ].filter(Boolean)
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Switchyard gap report</title>
<style>${CSS}</style>
</head>
<body>
<h1>Switchyard gap report</h1>
<p class="meta">${summary.transfers} transfers (${summary.tree} in one trace tree, ${summary.joined} joined by transfer id) from ${run.spans} spans in ${run.files.length} files${generatedAt ? ` · generated ${h(generatedAt.toISOString())}` : ''} · work is ${pct(summary.workShare)} of total time${notes.length ? ` · ${h(notes.join('; '))}` : ''}</p>
${summaryTable(r)}
<h2>Waterfall: ${chosen} transfers</h2>
${transfersTable(r)}
<div class="controls"><label>Show <select id="pick"><option value="">all ${r.details.length}</option>${options}</select></label></div>
${legend()}
${r.details.map(waterfall).join('\n')}
<h2>Per stage (ms)</h2>
${stageTable(r)}
<h2>Largest gaps</h2>
${gapTable(r)}
<p class="meta">SQL counts are a batch's statements divided by its size, so fractions are normal. All SQL spans: ${run.sql.statements} (${run.sql.inBatches} in batches, ${run.sql.inEvents} under requests or stage spans, ${run.sql.elsewhere} elsewhere). See docs/gap-report.md.</p>
<script>${SCRIPT}</script>
</body>
</html>
`
}

module.exports = { toHtml }
