'use strict'

// The test reader of the Prometheus text format rejects what a scraper would.

const { parseExposition, valueOf } = require('../support/metrics-exposition')

test('reads families, labels (unescaped) and values', () => {
  const m = parseExposition([
    '# HELP a_total Things.', '# TYPE a_total counter', 'a_total{x="q\\"uote",y="b\\\\s"} 3',
    '# TYPE h histogram', 'h_bucket{le="+Inf"} 2', 'h_sum 0.5', 'h_count 2', '# TYPE g gauge', 'g -1.5e3', ''
  ].join('\n'))
  expect(valueOf(m, 'a_total', { x: 'q"uote', y: 'b\\s' })).toBe(3)
  expect(valueOf(m, 'h_bucket', { le: '+Inf' })).toBe(2)
  expect(valueOf(m, 'g')).toBe(-1500)
  expect(valueOf(m, 'nothing')).toBeUndefined()
})

test.each([
  ['a sample without a TYPE', 'x 1'],
  ['a malformed label', '# TYPE x gauge\nx{a=b} 1'],
  ['a value that is not a number', '# TYPE x gauge\nx{a="b"} one'],
  ['an unknown type', '# TYPE x meter'],
  ['a repeated TYPE', '# TYPE x gauge\n# TYPE x gauge']
])('rejects %s', (_what, text) => {
  expect(() => parseExposition(text)).toThrow()
})

test('reads NaN and Inf in any case, as Prometheus does', () => {
  const m = parseExposition('# TYPE x gauge\nx{a="1"} Nan\nx{a="2"} -inf\nx{a="3"} +Inf')
  expect(valueOf(m, 'x', { a: '1' })).toBeNaN()
  expect(valueOf(m, 'x', { a: '2' })).toBe(-Infinity)
  expect(valueOf(m, 'x', { a: '3' })).toBe(Infinity)
})
