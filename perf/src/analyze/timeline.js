'use strict'

// Interval arithmetic for one transfer's events: order, gaps, work, total.

/**
 * Sorts by start. Span starts have millisecond resolution, so on a tie the
 * cause goes first when `precedes` can tell (a span before its descendants:
 * a callback before the participant's request it set off, which may end
 * first), then the longer item, since it encloses the other (a stage span and
 * the callback it sends within the same millisecond), then by label, so ties
 * are stable — and sets on each
 * item its offset from the first start and its gap before: how long nothing
 * of this transfer was running — max(0, start − the latest end among the
 * earlier items) — and the label of the item that latest end belongs to.
 * The items are updated in place (a run has millions of them); the sorted
 * array is new.
 * @template {{ start: number, end: number, label: string, offsetMs?: number, gapBeforeMs?: number, gapFrom?: string | null }} T
 * @param {T[]} items
 * @param {(a: T, b: T) => boolean} [precedes] whether a caused b
 * @returns {T[]}
 */
function toTimeline (items, precedes = () => false) {
  const causal = (a, b) => precedes(a, b) ? -1 : precedes(b, a) ? 1 : 0
  const sorted = [...items].sort((a, b) => a.start - b.start || causal(a, b) || b.end - a.end || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0))
  const first = sorted.length ? sorted[0].start : 0
  let latest = null
  for (const item of sorted) {
    item.offsetMs = item.start - first
    item.gapBeforeMs = latest ? Math.max(0, item.start - latest.end) : 0
    item.gapFrom = latest ? latest.label : null
    if (!latest || item.end > latest.end) latest = item
  }
  return sorted
}

/**
 * The length of the union of the intervals: time during which at least one
 * of them was running.
 * @param {{ start: number, end: number }[]} items
 */
function unionLength (items) {
  const sorted = [...items].sort((a, b) => a.start - b.start)
  let total = 0
  let from = -Infinity
  let to = -Infinity
  for (const { start, end } of sorted) {
    if (start > to) {
      if (to > from) total += to - from
      from = start
      to = end
    } else if (end > to) {
      to = end
    }
  }
  if (to > from) total += to - from
  return total
}

/** Last end − first start. @param {{ start: number, end: number }[]} items */
function spanLength (items) {
  if (!items.length) return 0
  return Math.max(...items.map((i) => i.end)) - Math.min(...items.map((i) => i.start))
}

module.exports = { toTimeline, unionLength, spanLength }
