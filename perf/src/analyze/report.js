'use strict'

// From loaded spans to the report model that the text, HTML and JSON
// outputs all render: run facts, distributions, and the transfers shown in
// detail (those asked for, or the slowest).

const { toTransfers } = require('./transfers')
const { toStats } = require('./stats')

/**
 * @param {Omit<Awaited<ReturnType<typeof import('./load').loadSpans>>, 'spanMap'> & { spanMap?: import('./load').SpanMap }} loaded
 * @param {{ top: number, transferIds?: string[] }} opts
 */
function buildReport (loaded, { top, transferIds = [] }) {
  const { transfers, sql, unassigned } = toTransfers(loaded.spans, loaded.spanMap)
  // The distributions cover whole transfers only: one whose POST or final
  // callback is not in the files (cut off by the run's start or end, its
  // trace half sampled, an expiry's abort traced apart) would pull every
  // figure toward whatever part of it was there.
  const complete = transfers.filter(isComplete)
  const stats = toStats(complete, { top })
  const byId = new Map(transfers.map((t) => [t.id, t]))
  const missing = transferIds.filter((id) => !byId.has(id))
  const details = transferIds.length ? transferIds.filter((id) => byId.has(id)).map((id) => byId.get(id)) : stats.slowest
  const events = transfers.flatMap((t) => t.events)
  return {
    run: {
      files: loaded.files,
      lines: loaded.lines,
      spans: loaded.spans.length,
      malformed: loaded.malformed,
      duplicates: loaded.duplicates,
      unassignedEvents: unassigned,
      incompleteTransfers: transfers.length - complete.length,
      missingBatches: events.filter((e) => e.batchMissing).length,
      sql
    },
    transfers,
    ...stats,
    details,
    missing
  }
}

/**
 * A transfer seen whole: from the payer's POST to a callback that ends it
 * (a PUT of the transfer or of its error).
 * @param {import('./types').Transfer} t
 */
const isComplete = (t) => t.events.some((e) => e.label === 'API POST /transfers') && t.events.some((e) => e.kind === 'callback' && e.label.startsWith('callback PUT'))

/** @param {import('./types').TransferEvent} e */
const eventToJson = ({ span, start, end, ...rest }) => ({ ...rest, traceId: span.traceId, spanId: span.spanId, service: span.service, name: span.name })

/** @param {import('./types').Transfer} t @param {boolean} withEvents */
function transferToJson ({ events, ...rest }, withEvents) {
  return withEvents ? { ...rest, eventCount: events.length, events: events.map(eventToJson) } : { ...rest, eventCount: events.length }
}

/** The `--json` output: everything, with span objects reduced to their ids. @param {ReturnType<typeof buildReport>} r */
function toJson (r) {
  return {
    run: r.run,
    summary: r.summary,
    stages: r.stages,
    largestGaps: r.largestGaps,
    slowest: r.slowest.map((t) => t.id),
    details: r.details.map((t) => transferToJson(t, true)),
    transfers: r.transfers.map((t) => transferToJson(t, false))
  }
}

module.exports = { buildReport, toJson }
