'use strict'

// The gap report for a terminal: run summary, the transfers in detail, the
// per-stage distributions, SQL per transfer and the largest gaps.
// docs/gap-report.md explains every column.

const { num, count, pct, summaryLine, linkText, table } = require('./format')

/** @typedef {ReturnType<typeof import('./report').buildReport>} Report */
/** @typedef {import('./types').Transfer} Transfer */

/** @param {import('./stats').Distribution} d */
const dist = (d, f = num) => `${f(d.p50)} / ${f(d.p95)} / ${f(d.p99)} / ${f(d.max)}`

/** @param {Report} r */
function runSection (r) {
  const { run, summary } = r
  const out = [
    `Switchyard gap report: ${summary.transfers} transfers from ${run.spans} spans in ${run.files.length} file${run.files.length === 1 ? '' : 's'}`,
    `  ${summary.tree} in one trace tree, ${summary.joined} joined by transfer id`,
    '  per transfer                 p50 / p95 / p99 / max',
    `  events                       ${dist(summary.events, count)}`,
    `  work ms                      ${dist(summary.work)}`,
    `  total ms                     ${dist(summary.total)}`,
    `  work share of total time     ${pct(summary.workShare)}`
  ]
  const warnings = []
  if (run.malformed.count) warnings.push(`${run.malformed.count} malformed line${run.malformed.count === 1 ? '' : 's'} skipped`)
  if (run.duplicates) warnings.push(`${run.duplicates} duplicate span${run.duplicates === 1 ? '' : 's'} ignored`)
  if (run.incompleteTransfers) warnings.push(`${run.incompleteTransfers} transfer${run.incompleteTransfers === 1 ? '' : 's'} without the payer's POST or a final callback left out of the distributions`)
  if (run.unassignedEvents) warnings.push(`${run.unassignedEvents} request/stage/callback span${run.unassignedEvents === 1 ? '' : 's'} without a transfer`)
  if (run.missingBatches) warnings.push(`${run.missingBatches} stage span${run.missingBatches === 1 ? '' : 's'} whose batch span is missing (their SQL is not counted)`)
  if (warnings.length) out.push(`  note: ${warnings.join('; ')}`)
  return out.join('\n')
}

/** @param {Transfer} t */
function transferSection (t) {
  const head = `Transfer ${t.id}: ${summaryLine(t)}, ${linkText(t)}`
  const body = table([
    { title: '#', get: (_, i) => i + 1 },
    { title: 'event', get: (e) => (e.error ? `${e.label} (!)` : e.label), align: 'left' },
    { title: 'at ms', get: (e) => num(e.offsetMs) },
    { title: 'gap ms', get: (e) => num(e.gapBeforeMs) },
    { title: 'queue ms', get: (e) => num(e.queueGapMs) },
    { title: 'work ms', get: (e) => num(e.durationMs) },
    { title: 'SQL', get: (e) => num(e.sqlStatements) },
    { title: 'SQL ms', get: (e) => num(e.sqlMs) },
    { title: 'batch', get: (e) => e.batchSize ?? '–' },
    { title: 'service', get: (e) => e.span.service, align: 'left' },
    { title: 'detail', get: (e) => e.detail, align: 'left' }
  ], t.events)
  return `${head}\n${body}`
}

/** @param {Report} r */
function stageSection (r) {
  const body = table([
    { title: 'stage', get: (s) => s.label, align: 'left' },
    { title: 'events', get: (s) => s.events },
    { title: 'queue p50', get: (s) => num(s.queue.p50) },
    { title: 'p95', get: (s) => num(s.queue.p95) },
    { title: 'p99', get: (s) => num(s.queue.p99) },
    { title: 'max', get: (s) => num(s.queue.max) },
    { title: 'work p50', get: (s) => num(s.work.p50) },
    { title: 'p95', get: (s) => num(s.work.p95) },
    { title: 'p99', get: (s) => num(s.work.p99) },
    { title: 'max', get: (s) => num(s.work.max) },
    { title: 'gap p50', get: (s) => num(s.gap.p50) },
    { title: 'max', get: (s) => num(s.gap.max) },
    { title: 'SQL/transfer', get: (s) => num(s.sqlPerTransfer) },
    { title: 'SQL ms/transfer', get: (s) => num(s.sqlMsPerTransfer) },
    { title: 'batch', get: (s) => num(s.meanBatchSize) }
  ], r.stages)
  return `Per stage (ms)\n${body}`
}

/** @param {Report} r */
function sqlSection (r) {
  const { sqlStatements: s, sqlMs } = r.summary
  const t = r.run.sql
  return [
    'SQL per transfer (a batch\'s statements ÷ its size, so fractions are normal)',
    `  statements  mean ${num(s.mean)}  p50 ${num(s.p50)}  p95 ${num(s.p95)}  p99 ${num(s.p99)}  max ${num(s.max)}`,
    `  SQL ms      mean ${num(sqlMs.mean)}  p50 ${num(sqlMs.p50)}  p95 ${num(sqlMs.p95)}  p99 ${num(sqlMs.p99)}  max ${num(sqlMs.max)}`,
    `  all SQL spans: ${t.statements} (${t.inBatches} in batches, ${t.inEvents} under requests or stage spans, ${t.elsewhere} elsewhere: sweeps, unattributed)`
  ].join('\n')
}

/** @param {Report} r */
function gapSection (r) {
  if (!r.largestGaps.length) return 'Largest gaps: none (every event started while an earlier one was running)'
  const body = table([
    { title: 'gap ms', get: (g) => num(g.gapMs) },
    { title: 'transfer', get: (g) => g.transferId, align: 'left' },
    { title: 'at ms', get: (g) => num(g.offsetMs) },
    { title: 'between', get: (g) => `${g.from} → ${g.to}`, align: 'left' }
  ], r.largestGaps)
  return `Largest gaps\n${body}`
}

/** @param {Report} r */
function toText (r) {
  const title = r.details === r.slowest ? `Slowest ${r.details.length} transfer${r.details.length === 1 ? '' : 's'}` : 'Requested transfers'
  return [
    runSection(r),
    `${title} (ms from the transfer's first event)`,
    ...r.details.map(transferSection),
    stageSection(r),
    sqlSection(r),
    gapSection(r)
  ].join('\n\n') + '\n'
}

module.exports = { toText }
