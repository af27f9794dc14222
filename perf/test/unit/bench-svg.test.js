'use strict'

const { lineChart, niceTicks } = require('../../src/bench/svg')

/** Well-formed XML: every tag closed in order, attributes quoted, no stray '<' or '&'. */
function assertWellFormed (xml) {
  const stack = []
  const tag = /<(\/?)([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g
  let last = 0
  let m
  while ((m = tag.exec(xml))) {
    const text = xml.slice(last, m.index)
    expect(text).not.toMatch(/[<>]/)
    expect(text).not.toMatch(/&(?!amp;|lt;|gt;|quot;)/)
    if (m[1]) expect(stack.pop()).toBe(m[2])
    else if (!m[4]) stack.push(m[2])
    last = tag.lastIndex
  }
  expect(xml.slice(last).trim()).toBe('')
  expect(stack).toEqual([])
}

const count = (xml, re) => (xml.match(re) || []).length

describe('SVG line chart', () => {
  const chart = lineChart({
    title: 'Latency <p99> & co',
    xLabel: 'offered rate',
    yLabel: 'ms',
    series: [
      { name: 'p50', points: [[100, 5], [200, 6], [400, 9]] },
      { name: 'p99', points: [[100, 20], [200, 40], [400, 90], [800, 400], [1000, NaN]] },
      { name: 'target', dash: true, points: [[0, 100], [1000, 100]] }
    ]
  })

  it('is well-formed SVG with the text escaped', () => {
    expect(chart.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true)
    assertWellFormed(chart)
    expect(chart).toContain('Latency &lt;p99&gt; &amp; co')
  })

  it('draws one circle per finite point and one polyline per series', () => {
    const groups = chart.split('<g class="series-').slice(1)
    expect(groups.map((g) => count(g, /<circle /g))).toEqual([3, 4, 2])
    expect(count(chart, /<polyline /g)).toBe(3)
    expect(count(chart, /stroke-dasharray/g)).toBe(2) // the dashed series and its legend
  })

  it('keeps every point inside the plot area, on a log axis too', () => {
    const log = lineChart({ title: 't', xLabel: 'x', yLabel: 'y', logY: true, series: [{ name: 's', points: [[1, 0.5], [2, 50], [3, 5000], [4, 0]] }] })
    assertWellFormed(log)
    const cys = [...log.matchAll(/<circle cx="([\d.]+)" cy="([\d.]+)"/g)].map((m) => [Number(m[1]), Number(m[2])])
    expect(cys).toHaveLength(3) // y = 0 cannot be drawn on a log axis
    for (const [x, y] of cys) {
      expect(x).toBeGreaterThanOrEqual(70)
      expect(x).toBeLessThanOrEqual(620)
      expect(y).toBeGreaterThanOrEqual(40)
      expect(y).toBeLessThanOrEqual(380)
    }
  })

  it('chooses round ticks that cover the range', () => {
    expect(niceTicks(0, 1000)).toEqual([0, 200, 400, 600, 800, 1000])
    const t = niceTicks(0, 1234)
    expect(t[0]).toBe(0)
    expect(t[t.length - 1]).toBeGreaterThanOrEqual(1234)
  })
})
