'use strict'

// A hand-written SVG line chart, no dependency: axes with round ticks, one
// polyline and one circle per point for each series, a legend. Linear or
// log-10 y axis. Pure: data in, SVG text out.

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#17becf', '#7f7f7f']

/** @param {string} s */
const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

/** Round tick values covering [lo, hi]. @param {number} lo @param {number} hi @param {number} [count] */
function niceTicks (lo, hi, count = 5) {
  if (!(hi > lo)) hi = lo + 1
  const raw = (hi - lo) / count
  const mag = 10 ** Math.floor(Math.log10(raw))
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) || 10 * mag
  const ticks = []
  for (let v = Math.floor(lo / step) * step; v <= hi + step * 1e-9; v += step) ticks.push(Math.round(v * 1e9) / 1e9)
  if (ticks[ticks.length - 1] < hi) ticks.push(ticks[ticks.length - 1] + step)
  return ticks
}

/** Powers of ten covering [lo, hi] (lo > 0). @param {number} lo @param {number} hi */
function logTicks (lo, hi) {
  const ticks = []
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) ticks.push(10 ** e)
  return ticks
}

/** @param {number} v */
const label = (v) => (Math.abs(v) >= 1000 ? `${Math.round(v / 100) / 10}k`.replace('.0k', 'k') : String(Math.round(v * 100) / 100))

/**
 * @param {{ title: string, xLabel: string, yLabel: string, series: { name: string, points: [number, number][], dash?: boolean }[],
 *   logY?: boolean, width?: number, height?: number, yMin?: number }} chart
 */
function lineChart ({ title, xLabel, yLabel, series, logY = false, width = 640, height = 380, yMin }) {
  const m = { left: 70, right: 20, top: 40, bottom: 50 + 18 * Math.ceil(series.length / 3) }
  const pw = width - m.left - m.right
  const ph = height - m.top - m.bottom
  const pts = series.flatMap((s) => s.points).filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y) && (!logY || y > 0))
  const xs = pts.map((p) => p[0]); const ys = pts.map((p) => p[1])
  const xTicks = niceTicks(xs.length ? Math.min(0, ...xs) : 0, xs.length ? Math.max(...xs) : 1)
  const yTicks = logY
    ? logTicks(ys.length ? Math.min(...ys) : 1, ys.length ? Math.max(...ys) : 10)
    : niceTicks(yMin !== undefined ? yMin : Math.min(0, ...ys), ys.length ? Math.max(...ys) : 1)
  const [x0, x1] = [xTicks[0], xTicks[xTicks.length - 1]]
  const [y0, y1] = [yTicks[0], yTicks[yTicks.length - 1]]
  const fy = logY ? (/** @type {number} */ v) => Math.log10(v) : (/** @type {number} */ v) => v
  const sx = (/** @type {number} */ x) => m.left + ((x - x0) / (x1 - x0 || 1)) * pw
  const sy = (/** @type {number} */ y) => m.top + ph - ((fy(y) - fy(y0)) / (fy(y1) - fy(y0) || 1)) * ph
  const f = (/** @type {number} */ v) => Math.round(v * 10) / 10
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${esc(title)}</text>`]
  for (const t of xTicks) out.push(`<line x1="${f(sx(t))}" y1="${m.top}" x2="${f(sx(t))}" y2="${m.top + ph}" stroke="#eee"/><text x="${f(sx(t))}" y="${m.top + ph + 16}" text-anchor="middle">${esc(label(t))}</text>`)
  for (const t of yTicks) out.push(`<line x1="${m.left}" y1="${f(sy(t))}" x2="${m.left + pw}" y2="${f(sy(t))}" stroke="#eee"/><text x="${m.left - 6}" y="${f(sy(t)) + 4}" text-anchor="end">${esc(label(t))}</text>`)
  out.push(`<rect x="${m.left}" y="${m.top}" width="${pw}" height="${ph}" fill="none" stroke="#333"/>`)
  out.push(`<text x="${m.left + pw / 2}" y="${m.top + ph + 34}" text-anchor="middle">${esc(xLabel)}</text>`)
  out.push(`<text transform="translate(16 ${m.top + ph / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}${logY ? ' (log)' : ''}</text>`)
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length]
    const valid = s.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y) && (!logY || y > 0))
    const cls = `series-${i}`
    out.push(`<g class="${cls}">`)
    if (valid.length > 1) out.push(`<polyline fill="none" stroke="${color}" stroke-width="2"${s.dash ? ' stroke-dasharray="6 4"' : ''} points="${valid.map(([x, y]) => `${f(sx(x))},${f(sy(y))}`).join(' ')}"/>`)
    for (const [x, y] of valid) out.push(`<circle cx="${f(sx(x))}" cy="${f(sy(y))}" r="3" fill="${color}"><title>${esc(s.name)}: ${esc(label(x))}, ${esc(label(y))}</title></circle>`)
    out.push('</g>')
    const lx = m.left + (i % 3) * (pw / 3); const ly = m.top + ph + 52 + 18 * Math.floor(i / 3)
    out.push(`<line x1="${f(lx)}" y1="${ly - 4}" x2="${f(lx + 22)}" y2="${ly - 4}" stroke="${color}" stroke-width="2"${s.dash ? ' stroke-dasharray="6 4"' : ''}/><text x="${f(lx + 28)}" y="${ly}">${esc(s.name)}</text>`)
  })
  out.push('</svg>')
  return out.join('\n') + '\n'
}

module.exports = { lineChart, niceTicks }
