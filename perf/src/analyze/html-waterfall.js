'use strict'

// One transfer as an HTML waterfall: a row per span on a shared time axis,
// the gap before each span shaded, the message's queue wait drawn under it.
// Plain HTML and CSS: positions are percentages of the transfer's total
// time, so it renders without script and at any width.

const { num, summaryLine, linkText, escapeHtml: h } = require('./format')

/** @typedef {import('./types').Transfer} Transfer */

/** A tick step of 1, 2 or 5 × 10^k giving at most `max` ticks over `total`. */
function tickStep (total, max = 8) {
  const raw = total / max
  if (!(raw > 0)) return 1
  const pow = 10 ** Math.floor(Math.log10(raw))
  return [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw)
}

const pos = (v) => Math.max(0, Math.min(100, v)).toFixed(4)

/** @param {Transfer} t */
function waterfall (t) {
  const scale = t.totalMs > 0 ? t.totalMs : 1
  const at = (ms) => pos((ms / scale) * 100)
  const step = tickStep(scale)
  const ticks = []
  for (let k = 0; k * step <= scale + 1e-9; k++) ticks.push(`<span class="tick" style="left:${at(k * step)}%">${num(k * step).replace(/\.?0+$/, '')}${k ? '' : ' ms'}</span>`)
  const grid = `background-size:${pos((step / scale) * 100)}% 100%`

  const rows = t.events.map((e, i) => {
    const gap = e.gapBeforeMs > 0
      ? `<div class="gap" style="left:${at(e.offsetMs - e.gapBeforeMs)}%;width:${at(e.gapBeforeMs)}%" title="${h(`gap ${num(e.gapBeforeMs)} ms after ${e.gapFrom}`)}"></div>`
      : ''
    const queue = e.queueGapMs !== null && e.queueGapMs > 0
      ? `<div class="queue" style="left:${at(Math.max(0, e.offsetMs - e.queueGapMs))}%;width:${at(Math.min(e.queueGapMs, e.offsetMs))}%"></div>`
      : ''
    const tip = [
      e.label, `at ${num(e.offsetMs)} ms`, `work ${num(e.durationMs)} ms`, `gap before ${num(e.gapBeforeMs)} ms`,
      e.queueGapMs === null ? '' : `queue ${num(e.queueGapMs)} ms (produced at ${num(e.offsetMs - e.queueGapMs)} ms)`,
      `SQL ${num(e.sqlStatements)} statements, ${num(e.sqlMs)} ms${e.batchSize ? ` (batch of ${e.batchSize})` : ''}`,
      `${e.span.service} · ${e.span.name}`, e.detail, `span ${e.span.spanId} in trace ${e.span.traceId}`
    ].filter(Boolean).join('\n')
    return `<div class="row${e.error ? ' error' : ''}" data-stage="${h(e.stage)}" data-kind="${h(e.kind)}" data-label="${h(e.label)}" data-span-id="${h(e.span.spanId)}" title="${h(tip)}">` +
      `<div class="label"><span class="n">${i + 1}</span><span class="swatch"></span>${h(e.label)}<small>${h(e.detail)}</small></div>` +
      `<div class="track" style="${grid}">${gap}${queue}<div class="bar" style="left:${at(e.offsetMs)}%;width:${at(e.durationMs)}%"></div></div>` +
      `<div class="num">${num(e.offsetMs)}</div><div class="num">${num(e.gapBeforeMs)}</div><div class="num">${num(e.queueGapMs)}</div>` +
      `<div class="num">${num(e.durationMs)}</div><div class="num">${num(e.sqlStatements)}</div></div>`
  })

  return `<section class="waterfall" id="${h(`t-${t.id}`)}" data-transfer="${h(t.id)}">
<h3>Transfer <code>${h(t.id)}</code></h3>
<p class="line"><strong>${h(summaryLine(t))}</strong> · ${h(linkText(t))} · SQL ${num(t.sqlStatements)} statements, ${num(t.sqlMs)} ms</p>
<div class="wf">
<div class="head"><div class="label">event</div><div class="track axis">${ticks.join('')}</div><div class="num">at</div><div class="num">gap</div><div class="num">queue</div><div class="num">work</div><div class="num">SQL</div></div>
${rows.join('\n')}
</div>
</section>`
}

module.exports = { waterfall }
