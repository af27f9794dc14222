'use strict'

// Groups spans into transfers and lays each transfer out as a timeline of
// events: API requests, stage spans and callback deliveries, in start order.

const { attr, transferIdOf, transferIdInPath, isApi, isEvent, describe } = require('./span-kinds')
const { createSqlAttribution } = require('./sql')
const { indexSpans } = require('./load')
const { toTimeline, unionLength, spanLength } = require('./timeline')

/** @typedef {import('./types').Span} Span */
/** @typedef {import('./types').Transfer} Transfer */
/** @typedef {import('./types').TransferEvent} TransferEvent */

const MAX_SEARCH = 64
const MAX_ANCESTRY = 256

/**
 * @param {Span[]} spans
 * @param {import('./load').SpanMap} [spanMap] these spans by trace and span id, when already built (loadSpans)
 * @returns {{ transfers: Transfer[], sql: ReturnType<typeof createSqlAttribution>['totals'], unassigned: number }}
 */
function toTransfers (spans, spanMap) {
  const index = indexSpans(spans, spanMap)
  const { sqlOf, totals } = createSqlAttribution(spans, index)
  const transferOfApi = createApiResolver(spans, index)

  /** @type {Map<string, Span[]>} */
  const groups = new Map()
  let unassigned = 0
  for (const s of spans) {
    if (!isEvent(s)) continue
    const id = transferIdOf(s) ?? (isApi(s) ? transferOfApi(s) : undefined)
    if (id === undefined) { unassigned++; continue }
    if (!groups.has(id)) groups.set(id, [])
    groups.get(id).push(s)
  }

  const topOf = createTopFinder(index)
  const precedes = createAncestry(index)
  const transfers = [...groups].map(([id, members]) => {
    const events = toTimeline(members.map((span) => toEvent(span, id, sqlOf)), (a, b) => precedes(a.span, b.span))
    const traces = new Set(members.map((s) => s.traceId)).size
    const roots = new Set(members.map(topOf)).size
    return {
      id,
      events,
      firstStart: events[0].start,
      workMs: unionLength(events),
      totalMs: spanLength(events),
      traces,
      roots,
      link: /** @type {'tree' | 'joined'} */ (traces === 1 && roots === 1 ? 'tree' : 'joined'),
      sqlStatements: events.reduce((n, e) => n + e.sqlStatements, 0),
      sqlMs: events.reduce((n, e) => n + e.sqlMs, 0)
    }
  })
  transfers.sort((a, b) => a.firstStart - b.firstStart || (a.id < b.id ? -1 : 1))
  return { transfers, sql: totals, unassigned }
}

/**
 * @param {Span} span @param {string} transferId @param {(s: Span) => any} sqlOf
 * @returns {TransferEvent} with its place in the timeline still to be set
 */
function toEvent (span, transferId, sqlOf) {
  const d = describe(span, transferId)
  const sql = sqlOf(span)
  const queue = Number(attr(span, 'switchyard.queue_gap_ms'))
  return {
    kind: d.kind,
    label: d.label,
    stage: d.stage,
    detail: d.detail,
    span,
    start: span.start,
    end: span.end,
    durationMs: span.durationMs,
    queueGapMs: d.kind === 'stage' && Number.isFinite(queue) ? queue : null,
    sqlStatements: sql.statements,
    sqlMs: sql.ms,
    batchSize: sql.batchSize,
    batchMissing: sql.batchMissing,
    error: Boolean(span.status && span.status.code === 2),
    offsetMs: 0,
    gapBeforeMs: 0,
    gapFrom: null
  }
}

/**
 * fastify's request span may not carry the transfer id (the route handler's
 * span is the active one when the id is known), so a request span is joined
 * to a transfer through a descendant that carries it, its `/transfers/{id}`
 * path, or — last — the one transfer its trace belongs to.
 */
function createApiResolver (spans, index) {
  /** @type {Map<string, Set<string>>} */
  const idsByTrace = new Map()
  for (const s of spans) {
    const id = transferIdOf(s)
    if (id === undefined) continue
    if (!idsByTrace.has(s.traceId)) idsByTrace.set(s.traceId, new Set())
    idsByTrace.get(s.traceId).add(id)
  }
  return (s) => {
    const queue = [...index.childrenOf(s)]
    for (let seen = 0; queue.length && seen < MAX_SEARCH; seen++) {
      const c = queue.shift()
      const id = transferIdOf(c)
      if (id !== undefined) return id
      queue.push(...index.childrenOf(c))
    }
    const fromPath = transferIdInPath(s)
    if (fromPath !== undefined) return fromPath
    const ids = idsByTrace.get(s.traceId)
    return ids && ids.size === 1 ? [...ids][0] : undefined
  }
}

/**
 * The top-most ancestor reachable by parent links. A transfer whose events
 * all reach one top in one trace is one tree; a missing parent (a span not
 * exported, a participant that started a new trace) makes another top.
 */
function createTopFinder (index) {
  /** @type {Map<Span, Span>} */
  const memo = new Map()
  return function topOf (s) {
    const path = []
    let cur = s
    while (!memo.has(cur)) {
      path.push(cur)
      const p = index.parentOf(cur)
      if (!p || path.length > 10000) break
      cur = p
    }
    const top = memo.get(cur) || cur
    for (const p of path) memo.set(p, top)
    return top
  }
}

/**
 * Whether one span is an ancestor of another: asked only when two events
 * start in the same millisecond, so it walks parent links rather than keep
 * a table.
 */
function createAncestry (index) {
  /** @param {Span} a @param {Span} b */
  return function isAncestor (a, b) {
    if (a.traceId !== b.traceId) return false
    let cur = index.parentOf(b)
    for (let hops = 0; cur && hops < MAX_ANCESTRY; hops++) {
      if (cur === a) return true
      cur = index.parentOf(cur)
    }
    return false
  }
}

module.exports = { toTransfers }
