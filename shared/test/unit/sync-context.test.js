'use strict'

const { ROOT_CONTEXT, createContextKey } = require('@opentelemetry/api')
const { createSyncContextManager, SUPPRESS_TRACING } = require('../../src/tracing/sync-context')

const KEY = createContextKey('test key')

test('a context is active only while `with` runs its function, and nests', () => {
  const m = createSyncContextManager()
  const outer = ROOT_CONTEXT.setValue(KEY, 'outer')
  const inner = ROOT_CONTEXT.setValue(KEY, 'inner')
  const seen = m.with(outer, (a, b) => {
    const here = [m.active().getValue(KEY), a, b]
    m.with(inner, () => here.push(m.active().getValue(KEY)))
    here.push(m.active().getValue(KEY))
    return here
  }, undefined, 1, 2)
  expect(seen).toEqual(['outer', 1, 2, 'inner', 'outer'])
  // Restored even when the function throws.
  expect(() => m.with(outer, () => { throw new Error('boom') })).toThrow('boom')
  expect(m.active().getValue(KEY)).toBeUndefined()
})

test('outside `with`, and after an await inside it, tracing is suppressed', async () => {
  const m = createSyncContextManager()
  expect(m.active().getValue(SUPPRESS_TRACING)).toBe(true)
  const ctx = ROOT_CONTEXT.setValue(KEY, 'chunk')
  const afterAwait = await m.with(ctx, async () => {
    expect(m.active().getValue(KEY)).toBe('chunk')
    await null
    return m.active()
  })
  expect([afterAwait.getValue(KEY), afterAwait.getValue(SUPPRESS_TRACING)]).toEqual([undefined, true])
})

test('a bound function runs in its context whenever it is called', () => {
  const m = createSyncContextManager()
  const ctx = ROOT_CONTEXT.setValue(KEY, 'bound')
  const bound = m.bind(ctx, function (/** @type {number} */ x) { return [this, x, m.active().getValue(KEY)] })
  const self = { name: 'caller' }
  expect(bound.call(self, 7)).toEqual([self, 7, 'bound'])
  expect(m.bind(ctx, 'not a function')).toBe('not a function')
})
