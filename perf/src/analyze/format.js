'use strict'

// Number formatting, plain-text tables and HTML escaping shared by the reports.

/** Milliseconds (or any measure) with two decimals; `–` when there is none. @param {number | null | undefined} v */
const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v.toFixed(2) : '–')

/** A count: whole numbers as they are, anything else like `num`. @param {number | null | undefined} v */
const count = (v) => (Number.isInteger(v) ? String(v) : num(v))

/** @param {number | null | undefined} v share in 0..1 */
const pct = (v) => (typeof v === 'number' && Number.isFinite(v) ? `${(v * 100).toFixed(1)}%` : '–')

/** "12 events / 17.75 ms work / 30.00 ms total" @param {{ events: any[], workMs: number, totalMs: number }} t */
const summaryLine = (t) => `${t.events.length} events / ${num(t.workMs)} ms work / ${num(t.totalMs)} ms total`

/** @param {{ link: string, traces: number, roots: number }} t */
const linkText = (t) => (t.link === 'tree' ? 'one trace tree' : `joined by transfer id (${t.traces} trace${t.traces > 1 ? 's' : ''}, ${t.roots} roots)`)

/**
 * A plain-text table: columns padded to their widest cell, numbers right-aligned.
 * @template T
 * @param {{ title: string, get: (row: T, i: number) => string | number, align?: 'left' | 'right' }[]} columns
 * @param {T[]} rows
 * @param {string} [indent]
 */
function table (columns, rows, indent = '  ') {
  const cells = rows.map((r, i) => columns.map((c) => String(c.get(r, i))))
  const widths = columns.map((c, j) => Math.max(c.title.length, ...cells.map((row) => row[j].length)))
  const line = (row) => indent + row.map((v, j) => (columns[j].align === 'left' ? v.padEnd(widths[j]) : v.padStart(widths[j]))).join('  ').trimEnd()
  return [line(columns.map((c) => c.title)), ...cells.map(line)].join('\n')
}

const HTML_ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
/** Text from traces is data, never markup. @param {unknown} v */
const escapeHtml = (v) => String(v ?? '').replace(/[&<>"']/g, (c) => HTML_ESCAPES[c])

module.exports = { num, count, pct, summaryLine, linkText, table, escapeHtml }
