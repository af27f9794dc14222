'use strict'

// The shapes the gap report passes between its modules (JSDoc only).

/**
 * One line of a trace file, as written by shared/src/tracing/file-spans.js.
 * @typedef {{ traceId: string, spanId: string, parentSpanId: string | null, name: string, kind: string,
 *   service: string, start: number, end: number, durationMs: number, attributes: Record<string, any>,
 *   links: { traceId: string, spanId: string, attributes?: Record<string, any> }[],
 *   status: { code: number, message?: string } }} Span
 */

/**
 * One step of a transfer: an API request, a stage span or a callback delivery.
 * Times are milliseconds; `offsetMs` counts from the transfer's first event.
 * @typedef {{ kind: 'api' | 'stage' | 'callback', label: string, stage: string, detail: string,
 *   span: Span, start: number, end: number, offsetMs: number, durationMs: number,
 *   gapBeforeMs: number, gapFrom: string | null, queueGapMs: number | null,
 *   sqlStatements: number, sqlMs: number, batchSize: number | null, batchMissing: boolean,
 *   error: boolean }} TransferEvent
 */

/**
 * @typedef {{ id: string, events: TransferEvent[], firstStart: number, workMs: number, totalMs: number,
 *   traces: number, roots: number, link: 'tree' | 'joined', sqlStatements: number, sqlMs: number }} Transfer
 */

module.exports = {}
